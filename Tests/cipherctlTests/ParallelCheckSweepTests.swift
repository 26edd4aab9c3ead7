import Foundation
import TestSupport
import XCTest

/// Databases of several tables (indexes, UNIQUE columns, WITHOUT ROWID tables, overflow and
/// freelist pages, auto_vacuum none, full or incremental) damaged through SQLite's own page
/// writer, `sqlite_dbpage`, so that every HMAC stays valid and only the b-tree check can
/// notice: `open --check` (its check split over the cores) must give the shell's
/// `PRAGMA integrity_check` verdict, ok or not, on every one. The seed is printed;
/// `CIPHERCTL_CHECK_SEED` replays a run and `CIPHERCTL_CHECK_CASES` widens it.
final class ParallelCheckSweepTests: CLITestCase {
    private let rawKey = String(repeating: "5c", count: 32)
    private var keySQL: String { "PRAGMA key = \"x'\(rawKey)'\";" }
    /// The shell guards sqlite_dbpage and the schema by default (SQLITE_DBCONFIG_DEFENSIVE).
    private let unguarded = ".dbconfig defensive off\n"
    /// SQLCipher 4's reserve (IV and HMAC-SHA512) ends each 4096-byte page.
    private let usable = 4096 - 80

    func testParallelCheckFindsEveryDamageTheShellFinds() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = UInt64(environment["CIPHERCTL_CHECK_SEED"] ?? "") ?? UInt64.random(in: 1...999_999)
        let cases = Int(environment["CIPHERCTL_CHECK_CASES"] ?? "") ?? 16
        print("ParallelCheckSweepTests: seed \(seed), \(cases) databases (CIPHERCTL_CHECK_SEED=\(seed) replays it)")
        var generator = SeededGenerator(seed: seed)
        var damaged = 0
        for index in 0..<cases {
            let name = "case\(index).db"
            try makeDatabase(name, using: &generator)
            let damage = try damage(name, kind: index % 9, using: &generator)
            let shellOK = try shellVerdict(name)
            let result = try cipherctl(["open", name, "--key-env", "K", "--raw-key", "--check"], environment: ["K": rawKey])
            let label = "seed \(seed) case \(index) (\(damage))"
            XCTAssert([0, 4].contains(result.code), "\(label): exit \(result.code): \(result.stderr)")
            XCTAssertEqual(result.code == 0, shellOK, "\(label): cipherctl exit \(result.code), the shell says \(shellOK ? "ok" : "not ok"): \(result.stdout)")
            // SQLite's heading of its b-tree problems is no problem of its own, counted or named.
            XCTAssertFalse((result.stdout + result.stderr).contains("*** in database"), "\(label): \(result.stderr)")
            if !shellOK { damaged += 1 }
        }
        print("ParallelCheckSweepTests: \(damaged) of \(cases) databases damaged as the shell sees it")
    }

    /// Two to four tables, most of them indexed so that the check is split, rows deleted from
    /// some for freelist pages, every tenth row of some with a value that overflows.
    private func makeDatabase(_ name: String, using generator: inout SeededGenerator) throws {
        var sql = keySQL + "PRAGMA auto_vacuum = \(Int.random(in: 0...2, using: &generator));\n"
        for table in 0..<Int.random(in: 2...4, using: &generator) {
            let rows = Int.random(in: 40...400, using: &generator)
            let big = Bool.random(using: &generator) ? "CASE WHEN i % 10 = 0 THEN zeroblob(4500 + i) END" : "NULL"
            switch Int.random(in: 0...3, using: &generator) {
            case 0:
                sql += "CREATE TABLE t\(table)(k TEXT PRIMARY KEY, n INTEGER NOT NULL, b BLOB) WITHOUT ROWID;\n"
                sql += "CREATE INDEX t\(table)_n ON t\(table)(n);\n"
            case 1:
                sql += "CREATE TABLE t\(table)(id INTEGER PRIMARY KEY, k TEXT UNIQUE, n INTEGER, b BLOB);\n"
            case 2:
                sql += "CREATE TABLE t\(table)(id INTEGER PRIMARY KEY, k TEXT, n INTEGER, b BLOB);\n"
            default:
                sql += "CREATE TABLE t\(table)(id INTEGER PRIMARY KEY, k TEXT, n INTEGER, b BLOB);\n"
                sql += "CREATE INDEX t\(table)_k ON t\(table)(k); CREATE INDEX t\(table)_nk ON t\(table)(n, k);\n"
            }
            sql += """
                WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(rows))
                INSERT INTO t\(table)(k, n, b) SELECT 'key ' || i || ' ' || ((i * 7919) % 1009), (i * 31) % 97, \(big) FROM s;

                """
            if Bool.random(using: &generator) { sql += "DELETE FROM t\(table) WHERE n % 3 = 0;\n" }
        }
        try sqlcipherOK(path(name), sql)
    }

    /// Damages `name` as `kind` says, through `sqlite_dbpage` or the schema; returns what was done.
    private func damage(_ name: String, kind: Int, using generator: inout SeededGenerator) throws -> String {
        switch kind {
        case 0:
            return "none"
        case 8:
            let exchange = try sqlcipher(path(name), unguarded + keySQL + """
                PRAGMA writable_schema = ON;
                WITH r(a, b) AS (SELECT min(rootpage), max(rootpage) FROM sqlite_schema WHERE type = 'index')
                UPDATE sqlite_schema SET rootpage = (SELECT CASE WHEN sqlite_schema.rootpage = a THEN b ELSE a END FROM r)
                WHERE type = 'index' AND rootpage IN (SELECT a FROM r UNION SELECT b FROM r);
                """)
            // Two roots exchanged, not shared: a schema with a root page twice does not load (cipherctl: exit 3).
            return exchange.code == 0 ? "two indexes' root pages exchanged" : "none (the exchange was refused)"
        default:
            var pages = try readPages(name)
            let (what, changed) = damagePages(&pages, kind: kind, using: &generator)
            // A commit under auto_vacuum = full moves pages by the freelist, and may refuse a damaged one: then nothing changed.
            return try writePages(name, changed.map { ($0, pages[$0]!) }) ? what : "none (\(what) refused)"
        }
    }

    /// Damages `pages` as `kind` (1 to 7) says; returns what was done and the pages changed.
    private func damagePages(_ pages: inout [Int: [UInt8]], kind: Int, using generator: inout SeededGenerator) -> (String, [Int]) {
        let count = pages.count
        let trees = (2...count).filter { [0x02, 0x05, 0x0A, 0x0D].contains(pages[$0]![0]) }
        let tree = trees.randomElement(using: &generator) ?? 2
        switch kind {
        case 1, 2:
            let first = Int.random(in: 2...count, using: &generator), second = Int.random(in: 2...count, using: &generator)
            if kind == 1 { (pages[first], pages[second]) = (pages[second], pages[first]) } else { pages[second] = pages[first] }
            return (kind == 1 ? "pages \(first) and \(second) swapped" : "page \(first) copied over page \(second)", [first, second])
        case 3:
            // The freelist's count or its first trunk, in the header on page 1.
            let offset = Bool.random(using: &generator) ? 32 : 36
            pages[1]!.replaceSubrange(offset..<offset + 4, with: [0, 0, 0, Bool.random(using: &generator) ? 0 : 1])
            return ("header field at \(offset)", [1])
        case 4, 5:
            let cells = Int(pages[tree]![3]) << 8 | Int(pages[tree]![4])
            if kind == 4 || cells < 2 {
                // The last cell dropped: an index or a table missing a row, or pages never used.
                pages[tree]![3] = cells == 0 ? 0 : pages[tree]![3]
                pages[tree]![4] = UInt8(truncatingIfNeeded: max(0, cells - 1))
                return ("page \(tree) loses its last cell", [tree])
            }
            let at = (pages[tree]![0] < 0x08 ? 12 : 8) + 2 * Int.random(in: 0..<(cells - 1), using: &generator)
            pages[tree]!.replaceSubrange(at..<at + 4, with: pages[tree]![at + 2..<at + 4] + pages[tree]![at..<at + 2])
            return ("page \(tree) two cells out of order at \(at)", [tree])
        default:
            let page = kind == 6 ? Int.random(in: 2...count, using: &generator) : tree
            let offset = Int.random(in: 0..<(kind == 6 ? usable : 16), using: &generator)
            pages[page]![offset] ^= UInt8.random(in: 1...255, using: &generator)
            return ("page \(page) byte \(offset) changed", [page])
        }
    }

    /// Every page's plaintext, by number, as SQLite's pager reads it.
    private func readPages(_ name: String) throws -> [Int: [UInt8]] {
        let output = try sqlcipherOK(path(name), keySQL + "SELECT pgno || ' ' || hex(data) FROM sqlite_dbpage;")
        var pages: [Int: [UInt8]] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let pgno = Int(parts[0]) else { continue }
            let hex = Array(parts[1].utf8)
            pages[pgno] = stride(from: 0, to: hex.count - 1, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        }
        return pages
    }

    /// Writes pages through the pager, which gives each a fresh IV and a valid HMAC, in one
    /// transaction; false when SQLite refused it (nothing was written).
    private func writePages(_ name: String, _ pages: [(Int, [UInt8])]) throws -> Bool {
        let updates = pages.map { pgno, bytes in
            "UPDATE sqlite_dbpage SET data = x'\(bytes.map { String(format: "%02X", $0) }.joined())' WHERE pgno = \(pgno);"
        }
        return try sqlcipher(path(name), unguarded + keySQL + "BEGIN;\n" + updates.joined(separator: "\n") + "\nCOMMIT;").code == 0
    }

    /// Whether the shell's `PRAGMA integrity_check` answers ok (an error is not ok).
    private func shellVerdict(_ name: String) throws -> Bool {
        let result = try sqlcipher(path(name), keySQL + "PRAGMA integrity_check;")
        return result.code == 0 && result.stdout.split(separator: "\n").allSatisfy { $0 == "ok" }
    }
}
