import Foundation
import XCTest

/// Maintenance SQL through `query`: pragmas that only read run without --write; VACUUM, a
/// journal mode change and a checkpoint run on their own under --write, outside the
/// transaction; mixed with other statements they are refused before anything runs.
final class MaintenanceSQLTests: CLITestCase {
    private let keys = ["K": "maintenance key"]

    func testPragmasThatOnlyReadRunWithoutWriteAndChangeNothing() throws {
        let db = try makeShellDatabase("a.db", key: "maintenance key", rows: 50)
        let before = try fingerprint(db)
        let cases = [
            ("PRAGMA journal_mode", "delete"), ("PRAGMA main.user_version", "12"), ("PRAGMA table_info(items)", "price"),
            ("PRAGMA index_list(items)", "items_name"), ("PRAGMA integrity_check", "ok"), ("PRAGMA quick_check(5)", "ok"),
        ]
        for (sql, expected) in cases {
            let result = try cipherctl(["query", db, sql, "--key-env", "K", "--format", "csv"], environment: keys)
            XCTAssertEqual(result.code, 0, "\(sql): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains(expected), "\(sql): \(result.stdout)")
        }
        XCTAssertEqual(try fingerprint(db).0, before.0)
        XCTAssertEqual(try fingerprint(db).1, before.1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["a.db"])
    }

    func testStatementsThatChangeTheDatabaseNeedWriteAndChangeNothingWithoutIt() throws {
        let db = try makeShellDatabase("a.db", key: "maintenance key", rows: 50)
        let before = try fingerprint(db)
        for sql in ["PRAGMA user_version = 5", "PRAGMA journal_mode = WAL", "PRAGMA journal_mode(WAL)", "PRAGMA wal_checkpoint",
                    "PRAGMA incremental_vacuum", "VACUUM", "VACUUM INTO 'copy.db'"] {
            let result = try cipherctl(["query", db, sql, "--key-env", "K", "--json", "--format", "json"], environment: keys)
            XCTAssertEqual(result.code, 2, "\(sql): \(result.stderr)")
            XCTAssertEqual(try jsonObject(result.stderr)["reason"] as? String, "needs-write", sql)
        }
        XCTAssertEqual(try fingerprint(db).0, before.0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["a.db"])
    }

    func testVacuumJournalModeAndCheckpointRunAloneUnderWrite() throws {
        let db = try makeShellDatabase("a.db", key: "maintenance key", rows: 2000)
        let keySQL = "PRAGMA key = 'maintenance key';"
        let rows = try contentChecksum(db, keySQL: keySQL)
        try sqlcipherOK(db, keySQL + " CREATE TABLE scratch(x); INSERT INTO scratch SELECT randomblob(1000) FROM items; DROP TABLE scratch;")
        let bloated = try XCTUnwrap(FileOperationsSize.of(db))
        let vacuum = try cipherctl(["query", db, "VACUUM", "--key-env", "K", "--write"], environment: keys)
        XCTAssertEqual(vacuum.code, 0, vacuum.stderr)
        XCTAssertLessThan(try XCTUnwrap(FileOperationsSize.of(db)), bloated, "VACUUM gave the free pages back")
        XCTAssertEqual(try contentChecksum(db, keySQL: keySQL), rows)

        for (sql, mode) in [("PRAGMA journal_mode = WAL", "wal"), ("PRAGMA wal_checkpoint(TRUNCATE)", "wal"), ("PRAGMA main.journal_mode(DELETE)", "delete")] {
            let result = try cipherctl(["query", db, sql, "--key-env", "K", "--write"], environment: keys)
            XCTAssertEqual(result.code, 0, "\(sql): \(result.stderr)")
            XCTAssertEqual(try sqlcipherOK(db, keySQL + " PRAGMA journal_mode;").split(separator: "\n").last.map(String.init), mode, sql)
        }
        XCTAssertEqual(try sqlcipherOK(db, keySQL + " PRAGMA integrity_check;").split(separator: "\n").last, "ok")
        XCTAssertEqual(try contentChecksum(db, keySQL: keySQL), rows)
    }

    func testVacuumIntoWritesACopyEncryptedWithTheSameKey() throws {
        let db = try makeShellDatabase("a.db", key: "maintenance key", rows: 100)
        let copy = path("copy.db")
        let result = try cipherctl(["query", db, "VACUUM INTO :copy", "--param", "copy=text:\(copy)", "--key-env", "K", "--write"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        let header = try XCTUnwrap(FileHandle(forReadingAtPath: copy)).readData(ofLength: 16)
        XCTAssertNotEqual(header, Data("SQLite format 3\u{0}".utf8), "the copy is encrypted")
        XCTAssertNotEqual(try sqlcipher(copy, "SELECT count(*) FROM items;").code, 0, "no key, no rows")
        XCTAssertEqual(try contentChecksum(copy, keySQL: "PRAGMA key = 'maintenance key';"),
                       try contentChecksum(db, keySQL: "PRAGMA key = 'maintenance key';"))
    }

    func testAMaintenanceStatementAmongOthersIsRefusedBeforeAnythingRuns() throws {
        let db = try makeShellDatabase("a.db", key: "maintenance key", rows: 50)
        let before = try fingerprint(db)
        for sql in ["INSERT INTO items(name) VALUES ('x'); VACUUM", "VACUUM; SELECT 1", "PRAGMA journal_mode = WAL; UPDATE items SET price = 0"] {
            let result = try cipherctl(["query", db, sql, "--key-env", "K", "--write", "--json", "--format", "json"], environment: keys)
            XCTAssertEqual(result.code, 2, "\(sql): \(result.stderr)")
            let error = try jsonObject(result.stderr)
            XCTAssertEqual(error["reason"] as? String, "must-run-alone", sql)
            XCTAssertTrue((error["hint"] as? String)?.contains("on its own") == true, sql)
            XCTAssertEqual(result.stdout, "", "nothing ran: \(sql)")
        }
        XCTAssertEqual(try fingerprint(db).0, before.0)
    }
}

/// A file's size, or nil.
private enum FileOperationsSize {
    static func of(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }
}
