import Dispatch
import FoundationEssentials

/// SQLite's whole `integrity_check`, split over the cores: `quick_check` on the caller's
/// connection, and `integrity_check(T)` on connections of their own for each table whose
/// full check adds to it, all at once.
///
/// Together they make every check the whole one makes, so that they all answer "ok" only
/// when it would. `quick_check` runs the same b-tree check over every tree (each page used
/// once, the freelist, the pointer maps, pages never used, the header's root page fields),
/// the same index entry counts, and the same NOT NULL, type and CHECK tests of every row; what
/// it leaves out is the lookup of each row in each of its table's indexes and the order of a
/// WITHOUT ROWID table's keys, which `integrity_check(T)` makes for T. A table with no index
/// that has a rowid needs nothing more. The split runs only when it has two such tables to
/// give out, and not beside a virtual table (whose own check `quick_check` may run in a
/// lighter mode). See https://www.sqlite.org/pragma.html#pragma_integrity_check
///
/// Only for a database held in one read transaction (`IntegrityReport`): every connection
/// then reads the same state, and each thread takes the stored HMAC of each page it reads
/// that the pass has proven as computed (`ProvenPageMap`).
/// When any part finds anything, the caller runs the whole check for SQLite's own messages.
enum ParallelIntegrityCheck {
    /// Whether every part answered "ok"; nil when the split does not apply (one core, fewer
    /// than two tables to give out, a virtual table, a key the connections cannot share).
    static func run(
        on opened: OpenedDatabase, cacheKiB: Int, proven: ProvenPageMap, threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) -> Bool? {
        guard threads > 1, let tables = try? tablesNeedingFullCheck(on: opened.connection), tables.count >= 2,
              let request = try? reopenRequest(for: opened) else { return nil }
        let lanes = min(threads, tables.count + 1)
        let work = CheckQueue(tasks: ["PRAGMA quick_check"] + tables.map { "PRAGMA integrity_check(\(quoted($0)))" })
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            proven.trustOnThisThread()
            defer { ProvenPageMap.stopTrusting() }
            // Lane 0 works on the caller's connection, inside its read transaction.
            guard let connection = lane == 0 ? opened.connection : try? DatabaseOpener.open(request, checked: opened.file) else {
                return work.fail()
            }
            guard (try? connection.execute("PRAGMA cache_size = -\(max(1024, cacheKiB / lanes))")) != nil else { return work.fail() }
            while let sql = work.next() {
                guard let rows = try? IntegrityReport.collect(connection, sql), rows == ["ok"] else { return work.fail() }
            }
        }
        try? opened.connection.execute("PRAGMA cache_size = -\(cacheKiB)")
        return !work.failed
    }

    /// The tables whose full check adds to `quick_check`'s: ordinary tables with an index,
    /// and WITHOUT ROWID tables; nil when the schema holds a virtual table.
    static func tablesNeedingFullCheck(on connection: Connection) throws -> [String]? {
        let rows = try connection.rows("""
            SELECT l.name, l.type, l.wr, EXISTS (SELECT 1 FROM main.sqlite_schema AS s WHERE s.type = 'index' AND s.tbl_name = l.name COLLATE NOCASE)
            FROM pragma_table_list AS l WHERE l.schema = 'main'
            """)
        var tables: [String] = []
        for row in rows {
            guard row.count == 4, case .text(let name) = row[0], case .text(let type) = row[1] else { return nil }
            if type == "virtual" { return nil }
            guard type == "table" || type == "shadow" else { continue }
            if row[2] == .integer(1) || row[3] == .integer(1) { tables.append(name) }
        }
        return tables
    }

    /// How to open the database `opened` holds again as it was opened, with a raw key, so
    /// that no connection derives the key again.
    private static func reopenRequest(for opened: OpenedDatabase) throws -> OpenRequest? {
        guard var key = opened.key else { return nil }
        let settings = opened.settings.effective
        if key.kind == .passphrase {
            let header = settings.plaintextHeaderSize ?? 0
            guard let salt = settings.salt ?? (header == 0 ? opened.file.firstBytes : nil), salt.count == 16 else { return nil }
            key = try KeyDerivation.rawKey(for: key, salt: salt, settings: settings)
        }
        var request = OpenRequest(path: opened.file.path, key: key, settings: opened.settings, mode: .readOnly)
        request.searchesSettings = false
        // A lane reads as the caller's connection does (under its `ReaderLock`, or untouched).
        request.untouched = opened.untouched
        return request
    }

    /// A table's name as the argument of a pragma.
    private static func quoted(_ name: String) -> String {
        "'" + name.replacingScalar("'", with: "''") + "'"
    }
}

/// The parts of the check still to run, handed out one at a time to the lanes; once a part
/// fails, none is handed out any more.
private final class CheckQueue: @unchecked Sendable {
    private let lock = Lock()
    private var tasks: [String]
    private var handedOut = 0
    private(set) var failed = false

    init(tasks: [String]) { self.tasks = tasks }

    func next() -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard !failed, handedOut < tasks.count else { return nil }
        handedOut += 1
        return tasks[handedOut - 1]
    }

    func fail() {
        lock.lock()
        failed = true
        lock.unlock()
    }
}
