/// What `PRAGMA cipher_integrity_check` and `PRAGMA integrity_check` found.
///
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_integrity_check
public struct IntegrityReport: Equatable, Sendable {
    /// Each problem SQLCipher reported (HMAC failures name their page); empty when none.
    public var cipherProblems: [String]
    /// Each problem SQLite reported; empty when it answered "ok".
    public var sqliteProblems: [String]

    public init(cipherProblems: [String], sqliteProblems: [String]) {
        self.cipherProblems = cipherProblems
        self.sqliteProblems = sqliteProblems
    }

    /// Whether both checks passed.
    public var isOK: Bool { cipherProblems.isEmpty && sqliteProblems.isEmpty }

    /// Every problem, SQLCipher's first.
    public var problems: [String] { cipherProblems + sqliteProblems }

    /// The page numbers that SQLCipher's check names, in the order reported.
    public var failedPages: [Int] {
        cipherProblems.compactMap { problem in
            guard let range = problem.range(of: "page ") else { return nil }
            return Int(problem[range.upperBound...].prefix { $0.isNumber })
        }
    }

    /// Runs both checks on an open, keyed connection. `encrypted` false skips SQLCipher's;
    /// `quick` runs `quick_check` instead of the full `integrity_check`.
    ///
    /// A larger page cache keeps `integrity_check` on an encrypted database from decrypting
    /// the same pages again and again.
    public static func run(on connection: Connection, encrypted: Bool, quick: Bool = false) throws -> IntegrityReport {
        let previousCache = try connection.pragmaInteger("cache_size")
        try connection.execute("PRAGMA cache_size = -65536")
        defer {
            if let previousCache { try? connection.execute("PRAGMA cache_size = \(previousCache)") }
        }
        let cipher = encrypted ? try collect(connection, "PRAGMA cipher_integrity_check") : []
        let sqlite = try collect(connection, quick ? "PRAGMA quick_check" : "PRAGMA integrity_check").filter { $0 != "ok" }
        return IntegrityReport(cipherProblems: cipher, sqliteProblems: sqlite)
    }

    /// The rows a check reports. A check that stops on an unreadable page has already
    /// reported rows; the error that stopped it becomes one more problem.
    private static func collect(_ connection: Connection, _ sql: String) throws -> [String] {
        let statement = try connection.prepare(sql)
        var problems: [String] = []
        do {
            while try statement.step() {
                if case .text(let text) = statement.value(at: 0) { problems.append(text) }
            }
        } catch let error as DatabaseError {
            problems.append("check stopped: \(error.message)")
        }
        return problems
    }
}
