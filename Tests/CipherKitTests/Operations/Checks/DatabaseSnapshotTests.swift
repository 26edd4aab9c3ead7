import CipherKit
import XCTest

final class DatabaseSnapshotTests: CipherKitTestCase {
    func testSnapshotRecordsSchemaHeaderFieldsAndCounts() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: """
            CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);
            CREATE TABLE "a""b"(y);
            PRAGMA user_version = 5; PRAGMA application_id = 6;
            """)
        let connection = try Connection(path: target, mode: .readOnly)
        try connection.key(try passphrase("k"))
        let snapshot = try DatabaseSnapshot.read(from: connection)
        XCTAssertEqual(snapshot.userVersion, 5)
        XCTAssertEqual(snapshot.applicationID, 6)
        XCTAssertEqual(snapshot.rowCounts, [TableRowCount(table: "a\"b", rows: 0), TableRowCount(table: "t", rows: 2)])
        XCTAssertEqual(snapshot.totalRows, 2)
        XCTAssertEqual(snapshot.differences(from: snapshot), [])
    }

    func testDifferencesNameWhatChanged() {
        let base = DatabaseSnapshot(schema: [], userVersion: 1, applicationID: 2, autoVacuum: 0, journalMode: "wal", rowCounts: [TableRowCount(table: "t", rows: 3)])
        var changed = base
        changed.userVersion = 9
        changed.journalMode = "delete"
        changed.rowCounts = [TableRowCount(table: "t", rows: 2)]
        XCTAssertEqual(changed.differences(from: base), [
            "user_version is 9, expected 1",
            "journal_mode is delete, expected wal",
            "table 't' has 2 rows, expected 3",
        ])
    }
}
