/// What `PRAGMA cipher_integrity_check` and `PRAGMA integrity_check` found.
///
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_integrity_check
public struct IntegrityReport: Equatable, Sendable {
    /// Each problem SQLCipher reported (HMAC failures name their page); empty when none.
    public var cipherProblems: [String]
    /// Each problem SQLite reported; empty when it answered "ok".
    public var sqliteProblems: [String]
    /// The damaged pages a pass over every page found (each with its owner), when that pass ran.
    public var damagedPages: [DamagedPage]

    public init(cipherProblems: [String], sqliteProblems: [String], damagedPages: [DamagedPage] = []) {
        self.cipherProblems = cipherProblems
        self.sqliteProblems = sqliteProblems
        self.damagedPages = damagedPages
    }

    /// Whether both checks passed.
    public var isOK: Bool { cipherProblems.isEmpty && sqliteProblems.isEmpty }

    /// Every problem, SQLCipher's first.
    public var problems: [String] { cipherProblems + sqliteProblems }

    /// The page numbers that SQLCipher's check names, in the order reported.
    public var failedPages: [Int] {
        if !damagedPages.isEmpty { return damagedPages.filter { $0.page > 0 }.map(\.page) }
        return cipherProblems.compactMap { problem in
            guard let range = problem.range(of: "page ") else { return nil }
            return Int(problem[range.upperBound...].prefix { $0.isNumber })
        }
    }

    /// Checks the database `opened` holds: every page against its HMAC on all cores
    /// (`PageScan`, which also reads the committed WAL frames and names each damaged page's
    /// table or index), then SQLite's own check with a large cache.
    ///
    /// When pages are damaged, SQLite's check is not run: SQLCipher's connection is unusable
    /// after its first HMAC failure, so everything it said after that would be noise. A format
    /// without HMACs gets SQLite's check alone. `quick` runs `quick_check` instead.
    public static func run(on opened: OpenedDatabase, quick: Bool = false) throws -> IntegrityReport {
        guard let scan = try PageScan.run(on: opened) else {
            return try run(on: opened.connection, encrypted: false, quick: quick)
        }
        if !scan.isOK {
            return IntegrityReport(cipherProblems: scan.damaged.map(\.summary), sqliteProblems: [], damagedPages: scan.damaged)
        }
        return try run(on: opened.connection, encrypted: false, quick: quick)
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
        // A row may hold several problems on lines of their own: one problem a line.
        let sqlite = try collect(connection, quick ? "PRAGMA quick_check" : "PRAGMA integrity_check").filter { $0 != "ok" }
            .flatMap { $0.split(separator: "\n").map(String.init) }
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
