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

    func testUsageErrorsComeBeforeTheSQLFileIsRead() {
        XCTAssertEqual(usageMessage(["db", "--file", "missing.sql", "--format", "yaml"]), "--format must be one of " + ResultFormat.allCases.map(\.rawValue).joined(separator: ", "))
        XCTAssertEqual(usageMessage(["db", "--file", "missing.sql", "--format", "json", "--null", "x"]), "--null applies to the text formats; JSON writes null")
        XCTAssertEqual(usageMessage(["db", "SELECT 1", "--columns", "a"]), "--columns goes with --table")
        XCTAssertEqual(usageMessage(["db", "--table", "t", "--file", "x.sql"]), "--table reads a table without SQL; drop the SQL arguments or --file")
        XCTAssertEqual(usageMessage(["db", "--format", "csv"]), "no SQL given: pass it after the path, with --file PATH, or '-' for standard input (or use --table)")
    }
}
