/// Names the damaged pages behind a read that failed.
extension OpenedDatabase {
    /// `error` as the pages a scan of this database finds damaged, when it may mean damage:
    /// SQLite's "malformed", or SQLCipher's codec failing a page, after which its connection
    /// answers with the bare "SQL logic error". Nil when it does not, or no page is damaged
    /// (a malformed tree whose pages pass their HMACs keeps SQLite's own error).
    func namingDamage(_ error: Error) -> CipherKitError? {
        guard Self.mayMeanDamage(error), let scan = try? PageScan.run(on: self), !scan.isOK else { return nil }
        return CipherKitError.damagedPages(path: file.path, pages: scan.damaged)
    }

    private static func mayMeanDamage(_ error: Error) -> Bool {
        switch error {
        case let database as DatabaseError: return database.mayMeanDamage
        case CipherKitError.database(_, let database): return database.mayMeanDamage
        case CipherKitError.damaged: return true
        case QueryError.statementFailed(_, _, let database): return database.mayMeanDamage
        default: return false
        }
    }

    /// Runs `body`, which reads this database (and `other`'s, when given), with SQLite's
    /// errors as this database's, or, when they may mean damage, as the pages of the first of
    /// the two that a scan finds damaged.
    func namingDamageOf<T>(also other: OpenedDatabase? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try CipherKitError.translating(path: file.path, file: file, body)
        } catch {
            throw namingDamage(error) ?? other?.namingDamage(error) ?? error
        }
    }
}
