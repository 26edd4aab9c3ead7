import CipherKit
import XCTest

final class QueryRunnerTests: CipherKitTestCase {
    private func run(_ target: String, _ source: QuerySource, format: ResultFormat = .jsonl, parameters: QueryParameters = QueryParameters(), write: Bool = false) throws -> (String, QueryReport) {
        var collected: [UInt8] = []
        let output = OutputBuffer(capacity: 16) { collected.append(contentsOf: $0) }
        let writer = format.makeWriter(output: output, options: ResultOptions(blobEncoding: format.defaultBlobEncoding))
        let request = QueryRequest(database: OpenRequest(path: target, key: try passphrase("k")), source: source, parameters: parameters, write: write)
        let report = try QueryRunner.run(request, writer: writer)
        return (String(decoding: collected, as: UTF8.self), report)
    }

    func testStatementsRunInOrderAndEachResultSetIsWritten() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x'), (2, NULL)")
        let (text, report) = try run(target, .script("SELECT a FROM t ORDER BY a; SELECT b, b FROM t WHERE a = 1;"), format: .json)
        // Several statements: one document, an array of the result sets' arrays.
        XCTAssertEqual(text, "[\n[\n{\"a\":1},\n{\"a\":2}\n],\n[\n{\"b\":\"x\",\"b_2\":\"x\"}\n]\n]\n")
        XCTAssertEqual(report.statements, 2)
        XCTAssertEqual(report.resultSets, 2)
        XCTAssertEqual(report.rows, 3)
    }

    func testReadOnlyRefusesAWriteBeforeRunningIt() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(a)")
        let before = try fingerprint(target)
        XCTAssertThrowsError(try run(target, .script("INSERT INTO t VALUES (1)"))) { error in
            XCTAssertEqual(error as? QueryError, .needsWrite(number: 1, firstLine: "INSERT INTO t VALUES (1)"))
        }
        XCTAssertEqual(try fingerprint(target).0, before.0)
    }

    func testWriteIsAllOrNothing() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(a UNIQUE)")
        XCTAssertThrowsError(try run(target, .script("INSERT INTO t VALUES (1); INSERT INTO t VALUES (1)"), write: true)) { error in
            guard case .statementFailed(2, _, _)? = error as? QueryError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try run(target, .script("SELECT count(*) AS n FROM t")).0, "{\"n\":0}\n")
        let (_, report) = try run(target, .script("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)"), write: true)
        XCTAssertEqual(report.changes, 2)
        XCTAssertEqual(try run(target, .script("SELECT count(*) AS n FROM t")).0, "{\"n\":2}\n")
    }

    func testParametersBindByNameAndPositionAndMustAllBeUsed() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(a)")
        let parameters = QueryParameters(named: ["x": .integer(5), "y": .text("z")], positional: [.real(1.5), .blob([1])])
        let (text, _) = try run(target, .script("SELECT :x AS a, @x AS b, $y AS c, ? AS d; SELECT typeof(?) AS e"), parameters: parameters)
        XCTAssertEqual(text, "{\"a\":5,\"b\":5,\"c\":\"z\",\"d\":1.5}\n{\"e\":\"blob\"}\n")
        XCTAssertThrowsError(try run(target, .script("SELECT :missing"))) { error in
            XCTAssertEqual(error as? QueryError, .unboundPlaceholder(name: ":missing", number: 1, firstLine: "SELECT :missing"))
        }
        XCTAssertThrowsError(try run(target, .script("SELECT 1"), parameters: QueryParameters(named: ["x": .integer(1)]))) { error in
            XCTAssertEqual(error as? QueryError, .unusedParameter(name: "x"))
        }
        XCTAssertThrowsError(try run(target, .script("SELECT ?"), parameters: QueryParameters(positional: [.integer(1), .integer(2)]))) { error in
            XCTAssertEqual(error as? QueryError, .unusedArguments(given: 2, used: 1))
        }
    }

    func testBuiltQueryRunsWithItsArguments() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)")
        let query = Table("t").filter(.column("a") > 1).order(OrderTerm("a", descending: true)).query
        XCTAssertEqual(try run(target, .built(query), format: .value).0, "3\n2\n")
    }

    func testSQLErrorNamesTheStatement() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(a)")
        XCTAssertThrowsError(try run(target, .script("SELECT 1;\n\n  SELECT nope FROM t"))) { error in
            XCTAssertEqual("\(error)", "statement 2 (SELECT nope FROM t): no such column: nope")
        }
        XCTAssertThrowsError(try run(target, .script("  -- only a comment\n"))) { error in
            XCTAssertEqual(error as? QueryError, .noStatements)
        }
    }
}
