import CipherKit
import XCTest

final class TableTests: CipherKitTestCase {
    func testBuilderQuotesIdentifiersAndBindsEveryValue() {
        let query = Table("we\"ird")
            .select(["id", "na\"me"])
            .filter(.column("age") > 30 && .column("na\"me").like("a%'; DROP TABLE x; --"))
            .order(OrderTerm("na\"me", descending: true), OrderTerm("id"))
            .limit(10, offset: 20)
            .query
        XCTAssertEqual(query.sql, #"SELECT "id", "na""me" FROM "we""ird" WHERE (("age") > (?)) AND (("na""me") LIKE (?)) ORDER BY "na""me" DESC, "id" ASC LIMIT ? OFFSET ?"#)
        XCTAssertEqual(query.arguments, [.integer(30), .text("a%'; DROP TABLE x; --"), .integer(10), .integer(20)])
    }

    func testBareTableAndRawFragments() {
        XCTAssertEqual(Table("t").query, SQLQuery(sql: #"SELECT * FROM "t""#))
        let raw = Table("t").filter(.raw("x BETWEEN ? AND ?", arguments: [.integer(1), .integer(5)])).query
        XCTAssertEqual(raw.sql, #"SELECT * FROM "t" WHERE x BETWEEN ? AND ?"#)
        XCTAssertEqual(raw.arguments, [.integer(1), .integer(5)])
        XCTAssertEqual(Table("t").limit(nil, offset: 3).query.sql, #"SELECT * FROM "t" LIMIT ? OFFSET ?"#)
        XCTAssertEqual(Table("t").limit(nil, offset: 3).query.arguments, [.integer(-1), .integer(3)])
        XCTAssertEqual(Table("t").filter(.column("a").isIn([])).query.sql, #"SELECT * FROM "t" WHERE 0"#)
        XCTAssertEqual(OrderTerm(parsing: "Created At desc"), OrderTerm("Created At", descending: true))
        XCTAssertEqual(OrderTerm(parsing: "x ASC"), OrderTerm("x"))
        XCTAssertNil(OrderTerm(parsing: "  "))
    }

    func testBuiltQueriesRunOnARealDatabaseWithHostileNames() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: """
            CREATE TABLE "we""ird; DROP TABLE t" ("na""me" TEXT, "select" INTEGER);
            INSERT INTO "we""ird; DROP TABLE t" VALUES ('a', 1), ('b', 2), ('c', 3), (NULL, 4);
            """)
        let connection = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"))).connection
        let query = Table("we\"ird; DROP TABLE t").select(["select", "na\"me"])
            .filter(.column("select") >= 2 && !SQLExpression.column("na\"me").isNull)
            .order(OrderTerm("select", descending: true)).limit(5).query
        let statement = try connection.prepare(query.sql)
        try statement.bind(query.arguments)
        var rows: [Row] = []
        while try statement.step() { rows.append(statement.currentRow()) }
        XCTAssertEqual(rows.map { $0["na\"me"] }, [.text("c"), .text("b")])
        XCTAssertEqual(rows.first?.columns, ["select", "na\"me"])
    }
}
