import Dispatch
import FoundationEssentials
/// What a check of every page against its HMAC (`PageScan`, in place of SQLCipher's
/// `cipher_integrity_check`) and SQLite's `PRAGMA integrity_check` found.
public struct IntegrityReport: Equatable, Sendable {
    /// Each damaged page, one line each with its owner (`DamagedPage.summary`); empty when none.
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

    /// The numbers of the damaged pages, in page order.
    public var failedPages: [Int] {
        damagedPages.filter { $0.page > 0 }.map(\.page)
    }

    /// Checks the database `opened` holds: every page against its HMAC on all cores
    /// (`PageScan`, which also reads the committed WAL frames and names each damaged page's
    /// table or index), and SQLite's own check with a large cache.
    ///
    /// When pages are damaged, SQLite's answer is not used: SQLCipher's connection is unusable
    /// after its first HMAC failure, so everything it said after that would be noise. A format
    /// without HMACs gets SQLite's check alone (a plaintext one, after its -wal's frames:
    /// `PageScan.walOnly`). `quick` runs `quick_check` instead.
    ///
    /// A database in a rollback-journal mode is held in one read transaction for both checks
    /// (its SHARED lock keeps every writer out), so SQLite's check reads the very pages the
    /// pass proves, and runs while the pass runs: each page the pass has proven costs SQLite's
    /// check its decryption only (`ProvenPageMap`); one it reaches first, its HMAC as ever.
    public static func run(on opened: OpenedDatabase, quick: Bool = false) throws -> IntegrityReport {
        let connection = opened.connection
        // Only a transaction of its own: a caller's is left alone (and nothing is trusted).
        let began = connection.isAutocommit && (try? connection.journalMode()) != "wal" && (try? connection.execute("BEGIN")) != nil
        defer { if began, !connection.isAutocommit { try? connection.execute("ROLLBACK") } }
        let held = began && (try? connection.execute("SELECT count(*) FROM sqlite_master")) != nil
        if held, let codec = try PageCodec(for: opened), codec.hasHMAC {
            return try overlapped(opened, codec: codec, quick: quick)
        }
        let scan = try PageScan.run(on: opened) ?? PageScan.walOnly(on: opened)
        if let scan, !scan.isOK {
            return IntegrityReport(cipherProblems: scan.damaged.map(\.summary), sqliteProblems: [], damagedPages: scan.damaged)
        }
        return IntegrityReport(cipherProblems: [], sqliteProblems: try sqliteProblems(on: opened, quick: quick, proven: nil))
    }

    /// The pass on other threads while SQLite's check runs on this one; a pass that finds
    /// damage interrupts the check, whose answer is then not used.
    private static func overlapped(_ opened: OpenedDatabase, codec: PageCodec, quick: Bool) throws -> IntegrityReport {
        let connection = opened.connection
        // Taken before the check holds the connection's mutex.
        let access = DatabaseFileAccess(connection)
        let proven = ProvenPageMap(pages: try connection.pragmaInteger("page_count") ?? 0, codec: codec)
        let pass = PassOutcome()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let result = Result { try PageScan.run(path: opened.file.path, codec: codec, access: access, proven: proven) }
            if (try? result.get())?.isOK != true { connection.interrupt() }
            pass.result = result
        }
        let sqlite = Result { try sqliteProblems(on: opened, quick: quick, proven: proven) }
        group.wait()
        guard let scan = try pass.result?.get() else { throw CipherKitError.crypto(operation: "page HMACs could not be checked") }
        if !scan.isOK {
            return IntegrityReport(cipherProblems: scan.damaged.map(\.summary), sqliteProblems: [], damagedPages: scan.damaged)
        }
        return IntegrityReport(cipherProblems: [], sqliteProblems: try sqlite.get())
    }

    /// SQLite's check on an open, keyed connection, one problem a line; `quick` runs
    /// `quick_check` instead of the full `integrity_check`. A larger page cache (32 MB: the
    /// whole process then stays under 64 MB) keeps it from decrypting the same pages again
    /// and again.
    ///
    /// With `proven` pages, the full check first runs split over the cores
    /// (`ParallelIntegrityCheck`, the same cache shared out); only when that finds anything, or
    /// does not apply, does the whole check run here, for SQLite's own messages.
    private static func sqliteProblems(on opened: OpenedDatabase, quick: Bool, proven: ProvenPageMap?) throws -> [String] {
        let connection = opened.connection, cacheKiB = 32768
        let previousCache = try connection.pragmaInteger("cache_size")
        try connection.execute("PRAGMA cache_size = -\(cacheKiB)")
        defer {
            ProvenPageMap.stopTrusting()
            if let previousCache { try? connection.execute("PRAGMA cache_size = \(previousCache)") }
        }
        if let proven, !quick, ParallelIntegrityCheck.run(on: opened, cacheKiB: cacheKiB, proven: proven) == true { return [] }
        proven?.trustOnThisThread()
        // A row may hold several problems on lines of their own: one problem a line. SQLite
        // heads the b-tree problems with "*** in database main ***", which is none.
        return try collect(connection, quick ? "PRAGMA quick_check" : "PRAGMA integrity_check").filter { $0 != "ok" }
            .flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("*** in database ") }
    }

    /// The rows a check reports. A check that stops on an unreadable page has already
    /// reported rows; the error that stopped it becomes one more problem.
    static func collect(_ connection: Connection, _ sql: String) throws -> [String] {
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

/// What the pass on another thread gave.
private final class PassOutcome: @unchecked Sendable {
    var result: Result<PageScan, Error>?
}
