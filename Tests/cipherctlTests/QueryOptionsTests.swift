@testable import cipherctl
import CipherKit
import XCTest

/// `query`'s command line read once: what `QueryOptions` builds, and that every usage error
/// comes before any SQL file or standard input is read.
final class QueryOptionsTests: XCTestCase {
    private func options(_ arguments: [String]) throws -> QueryOptions {
        try QueryOptions(CommandLineParser.parse(arguments, for: CommandCatalog.query))
    }

    private func usageMessage(_ arguments: [String]) -> String? {
        do {
            _ = try options(arguments)
            return nil
        } catch let error as UsageError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    func testSQLArgumentsAndFileAreKeptToBeReadAtRunTime() throws {
        let read = try options(["db", "SELECT 1", "-", "--file", "missing.sql", "--format", "csv", "--write"])
        XCTAssertEqual(read.path, "db")
        XCTAssertEqual(read.sql, ["SELECT 1", "-"])
        XCTAssertEqual(read.file, "missing.sql")
        XCTAssertNil(read.tableRead)
        XCTAssertTrue(read.write)
        XCTAssertEqual(read.format, .csv)
    }

    func testATableReadCarriesItsArgumentsAndTheParametersDropThem() throws {
        let read = try options(["db", "--table", "t", "--where", "a > ?", "--arg", "int:3", "--param", "x=1", "--limit", "2", "--format", "jsonl"])
        let query = try XCTUnwrap(read.tableRead)
        XCTAssertEqual(query.arguments, [.integer(3), .integer(2)], "the --where value, then the limit")
        XCTAssertEqual(read.parameters.positional, [])
        XCTAssertEqual(read.parameters.named["x"], .integer(1))
    }

    /// A `--where` that would end the SELECT and start another statement is refused before
    /// anything is opened, however the ';' hides (after a closing parenthesis, before a
    /// combining mark); a ';' in a string or a trailing comment is part of one condition.
    func testAWhereConditionThatStartsAnotherStatementIsRefused() throws {
        let refused = ["1; DROP TABLE t", "1) ; DROP TABLE t; SELECT (1", "1;\u{301} DROP TABLE t", "a = 1;", "1 /* */ ; DELETE FROM t"]
        for condition in refused {
            XCTAssertEqual(usageMessage(["db", "--table", "t", "--where", condition]), "--where takes one SQL condition, not more statements after a ';'", condition)
        }
        for condition in ["a = ';'", "a > 1 -- the rest", "\"x;y\" = 2", "a IN (1, 2)"] {
            XCTAssertNil(usageMessage(["db", "--table", "t", "--where", condition]), condition)
        }
        let read = try options(["db", "--table", "t", "--where", "a > 1 -- the rest", "--limit", "2"])
        XCTAssertEqual(read.tableRead?.sql, "SELECT * FROM \"t\" WHERE (a > 1 -- the rest\n) LIMIT ?", "the comment ends at its line; the limit stays")
    }

    func testUsageErrorsComeBeforeTheSQLFileIsRead() {
        XCTAssertEqual(usageMessage(["db", "--file", "missing.sql", "--format", "yaml"]), "--format must be one of " + ResultFormat.allCases.map(\.rawValue).joined(separator: ", "))
        XCTAssertEqual(usageMessage(["db", "--file", "missing.sql", "--format", "json", "--null", "x"]), "--null applies to the text formats; JSON writes null")
        XCTAssertEqual(usageMessage(["db", "SELECT 1", "--columns", "a"]), "--columns goes with --table")
        XCTAssertEqual(usageMessage(["db", "--table", "t", "--file", "x.sql"]), "--table reads a table without SQL; drop the SQL arguments or --file")
        XCTAssertEqual(usageMessage(["db", "--format", "csv"]), "no SQL given: pass it after the path, with --file PATH, or '-' for standard input (or use --table)")
    }
}
