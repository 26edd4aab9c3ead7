import Foundation
import TestSupport
import XCTest

/// `recover` of a database whose index lost an interior page: SQLite's recovery puts the
/// entries of the index's surviving leaves in `lost_and_found`. Entries whose rows the table
/// kept are left out (every index is made again); entries of rows the table lost, and rows
/// of a WITHOUT ROWID table (which look the same), stay. The shell reads the new files.
final class RecoverIndexEntryTests: CLITestCase {
    private let keys = ["K": "recover key", "K2": "recovered key"]

    func testAnIndexThatLostAnInteriorPageLeavesNoLostAndFoundWhenEveryRowWasKept() throws {
        let source = try makeSource()
        try damage(source, pages: [try page(source, of: "t_name", type: "internal")])
        let result = try cipherctl(["recover", source, path("saved.db"), "--key-env", "K", "--to-key-env", "K2", "--json"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        let report = try jsonObject(result.stdout)
        XCTAssertEqual(report["tables"] as? [String: Int], ["t": 3000], result.stdout)
        XCTAssertGreaterThan(report["index_entries_left_out"] as? Int ?? 0, 2900, result.stdout)
        XCTAssertEqual(try shell(path("saved.db"), "PRAGMA integrity_check; SELECT count(*) FROM t INDEXED BY t_name WHERE name > '';"), ["ok", "3000"])
        let text = try cipherctl(["recover", source, path("text.db"), "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertTrue(text.stdout.contains("entries of index pages below a lost page left out of lost_and_found"), text.stdout)
        XCTAssertFalse(text.stdout.contains("  lost_and_found:"), text.stdout)
    }

    func testEntriesOfRowsTheTableLostStayInLostAndFoundAndNoOther() throws {
        let source = try makeSource()
        let leaf = try page(source, of: "t", type: "leaf")
        let onLeaf = Set(try rowids(onLeaf: leaf, of: source))
        try damage(source, pages: [try page(source, of: "t_name", type: "internal"), leaf])
        let result = try cipherctl(["recover", source, path("saved.db"), "--key-env", "K", "--to-key-env", "K2", "--json"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        let saved = path("saved.db")
        XCTAssertEqual(try shell(saved, "SELECT count(*) FROM t;"), ["\(3000 - onLeaf.count)"])
        let entries = try shell(saved, "SELECT c1 FROM lost_and_found WHERE id IS NULL AND nfield = 2;").compactMap { Int($0) }
        XCTAssertFalse(entries.isEmpty, "the lost rows' entries on the index's surviving leaves")
        XCTAssertTrue(Set(entries).isSubset(of: onLeaf), "only entries of lost rows: \(Set(entries).subtracting(onLeaf).sorted().prefix(5))")
        XCTAssertEqual(try shell(saved, "SELECT count(*) FROM lost_and_found l JOIN t ON t.id = l.c1;"), ["0"])
    }

    func testAWithoutRowidTableThatLostPagesKeepsEveryRowOfItsLeavesInLostAndFound() throws {
        let source = try makeSource(extraSQL: """
            CREATE TABLE w(name TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID;
            INSERT INTO w SELECT name, id FROM t;
            """)
        let interior = try page(source, of: "w", type: "internal")
        // A WITHOUT ROWID table's interior page holds whole rows: those are lost with it.
        let onInterior = Int(try shell(source, "SELECT ncell FROM dbstat WHERE pageno = \(interior);").first ?? "") ?? -1
        try damage(source, pages: [interior])
        let result = try cipherctl(["recover", source, path("saved.db"), "--key-env", "K", "--to-key-env", "K2", "--json"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        let report = try jsonObject(result.stdout)
        XCTAssertEqual(report["index_entries_left_out"] as? Int, 0, result.stdout)
        let kept = Int(try shell(path("saved.db"), "SELECT count(*) FROM w;").first ?? "") ?? -1
        let found = Int(try shell(path("saved.db"), "SELECT count(*) FROM lost_and_found WHERE nfield = 2;").first ?? "") ?? -1
        XCTAssertEqual(kept + found, 3000 - onInterior, "every row of w off the lost page is in w or in lost_and_found")
    }

    func testEntriesOfRowsOneTableLostStayWhenAnotherTableHoldsTheSameValuesUnderTheSameRowids() throws {
        let source = try makeTwins()
        let leaf = try page(source, of: "archive", type: "leaf")
        let lostRows = Set(try rowids(onLeaf: leaf, of: source, table: "archive"))
        // Only archive's index lost a page; then both tables' indexes did.
        for damagedIndexes in [["archive_status"], ["orders_status", "archive_status"]] {
            let damaged = path("damaged-\(damagedIndexes.count).db"), saved = path("saved-\(damagedIndexes.count).db")
            try FileManager.default.copyItem(atPath: source, toPath: damaged)
            let interiors = try damagedIndexes.map { try page(source, of: $0, type: "internal") }
            let onInteriors = try interiors.reduce(0) { $0 + (Int(try shell(source, "SELECT ncell FROM dbstat WHERE pageno = \($1);").first ?? "") ?? 0) }
            try damage(damaged, pages: interiors + [leaf])
            let result = try cipherctl(["recover", damaged, saved, "--key-env", "K", "--to-key-env", "K2"], environment: keys)
            XCTAssertEqual(result.code, 0, result.stderr)
            let entries = Set(try shell(saved, "SELECT c1 FROM lost_and_found WHERE id IS NULL AND nfield = 2;").compactMap { Int($0) })
            XCTAssertGreaterThanOrEqual(entries.intersection(lostRows).count, lostRows.count - onInteriors,
                                        "\(damagedIndexes): the entries of archive's lost rows stay: \(result.stdout)")
        }
    }

    func testASourceWithItsOwnLostAndFoundKeepsItAndTheReportNamesTheRecoverysTable() throws {
        let source = try makeSource(extraSQL: """
            CREATE TABLE lost_and_found(note TEXT);
            INSERT INTO lost_and_found VALUES ('the user''s own');
            """)
        try damage(source, pages: [try page(source, of: "t_name", type: "internal"), try page(source, of: "t", type: "leaf")])
        let saved = path("saved.db")
        let result = try cipherctl(["recover", source, saved, "--key-env", "K", "--to-key-env", "K2", "--json"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        let report = try jsonObject(result.stdout)
        XCTAssertEqual(report["lost_and_found_table"] as? String, "lost_and_found_0", result.stdout)
        XCTAssertEqual(try shell(saved, "SELECT note FROM lost_and_found;"), ["the user's own"])
        let text = try cipherctl(["recover", source, path("text.db"), "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertTrue(text.stdout.contains("rows missing from a table are in lost_and_found_0"), text.stdout)
        XCTAssertTrue(text.stdout.contains("left out of lost_and_found_0"), text.stdout)
    }

    // MARK: - Helpers

    /// Two tables with the same statuses under the same rowids, each with an index on them.
    private func makeTwins() throws -> String {
        let source = path("source.db")
        try sqlcipherOK(source, """
            PRAGMA key = 'recover key';
            CREATE TABLE orders(id INTEGER PRIMARY KEY, status TEXT, note TEXT);
            CREATE TABLE archive(id INTEGER PRIMARY KEY, status TEXT, note TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO orders SELECT i, 'status ' || (i % 7), 'order ' || i FROM n;
            INSERT INTO archive SELECT id, status, 'archived ' || id FROM orders;
            CREATE INDEX orders_status ON orders(status);
            CREATE INDEX archive_status ON archive(status);
            """)
        return source
    }

    /// 3,000 rows with an index over several leaves and an interior page.
    private func makeSource(extraSQL: String = "") throws -> String {
        let source = path("source.db")
        try sqlcipherOK(source, """
            PRAGMA key = 'recover key';
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v INTEGER);
            CREATE INDEX t_name ON t(name);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO t SELECT i, 'name ' || i, i * 7 FROM n;
            \(extraSQL)
            """)
        return source
    }

    /// The first page of `tree` of `type` (`internal`, `leaf`), by the shell's `dbstat`.
    private func page(_ database: String, of tree: String, type: String) throws -> Int {
        let found = try shell(database, "SELECT pageno FROM dbstat WHERE name = '\(tree)' AND pagetype = '\(type)' ORDER BY pageno LIMIT 1;")
        return try XCTUnwrap(found.first.flatMap { Int($0) }, "\(tree) has no \(type) page")
    }

    /// The rowids on a leaf of a table whose rowids run from 1 without a gap: the leaves in
    /// their order in the tree (`dbstat`'s path) hold them in turn.
    private func rowids(onLeaf number: Int, of database: String, table: String = "t") throws -> [Int] {
        let leaves = try shell(database, "SELECT pageno, ncell FROM dbstat WHERE name = '\(table)' AND pagetype = 'leaf' ORDER BY path;")
            .map { $0.split(separator: "|").compactMap { Int($0) } }
        var first = 1
        for leaf in leaves {
            if leaf[0] == number { return Array(first..<first + leaf[1]) }
            first += leaf[1]
        }
        XCTFail("page \(number) is no leaf of \(table)")
        return []
    }

    /// Changes a byte in the body of each page, so that it fails its HMAC.
    private func damage(_ database: String, pages: [Int]) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: database))
        defer { try? handle.close() }
        for number in pages {
            try handle.seek(toOffset: UInt64((number - 1) * 4096 + 600))
            handle.write(Data([0xA5, 0x5A]))
        }
    }

    private func shell(_ database: String, _ sql: String) throws -> [String] {
        let key = database.hasSuffix("source.db") ? "recover key" : "recovered key"
        // The first line is the key pragma's "ok".
        return Array(try sqlcipherOK(database, "PRAGMA key = '\(key)'; " + sql).split(separator: "\n").map(String.init).dropFirst())
    }
}
