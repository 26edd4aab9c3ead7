import CipherKit
import XCTest

final class StatementTests: CipherKitTestCase {
    func testEveryStorageClassRoundTripsThroughAnEncryptedDatabase() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(v)")
        let connection = try Connection(path: target, mode: .readWrite)
        try connection.key(try passphrase("k"))
        let values: [DatabaseValue] = [.null, .integer(Int64.min), .real(1.5), .text("héllo, \"world\"\n"), .blob([0, 1, 255]), .blob([]), .text("")]
        let insert = try connection.prepare("INSERT INTO t(v) VALUES (?)")
        for value in values {
            try insert.bind(value, at: 1)
            try insert.step()
            insert.reset()
        }
        let rows = try connection.rows("SELECT v, typeof(v) FROM t ORDER BY rowid")
        XCTAssertEqual(rows.map { $0[0] }, values)
        XCTAssertEqual(rows.map { $0[1] }, values.map { .text($0.storageClassName) })
    }

    func testNamedParametersBindByTheirPrefixedName() throws {
        let connection = try Connection(path: ":memory:", mode: .create)
        let statement = try connection.prepare("SELECT :a + @b + $c")
        XCTAssertEqual(statement.parameterCount, 3)
        for (name, value) in [(":a", 1), ("@b", 2), ("$c", 3)] {
            let index = try XCTUnwrap(statement.parameterIndex(named: name))
            try statement.bind(.integer(Int64(value)), at: index)
        }
        XCTAssertTrue(try statement.step())
        XCTAssertEqual(statement.value(at: 0), .integer(6))
    }

    func testColumnNamesAreReported() throws {
        let connection = try Connection(path: ":memory:", mode: .create)
        let statement = try connection.prepare("SELECT 1 AS one, 2 AS two")
        XCTAssertEqual(statement.columnNames, ["one", "two"])
    }

    func testBindingOutOfRangeThrows() throws {
        let connection = try Connection(path: ":memory:", mode: .create)
        let statement = try connection.prepare("SELECT ?")
        XCTAssertThrowsError(try statement.bind(.integer(1), at: 2))
    }

    func testReadOnlyStatementIsRecognised() throws {
        let connection = try Connection(path: ":memory:", mode: .create)
        XCTAssertTrue(try connection.prepare("SELECT 1").isReadOnly)
        try connection.execute("CREATE TABLE t(x)")
        XCTAssertFalse(try connection.prepare("INSERT INTO t VALUES (1)").isReadOnly)
    }
}
