import Foundation
import XCTest

/// One grammar for every command, end to end: global options before the command, old
/// spellings kept, query's rows shaped by --format alone, and diff's "different" told apart
/// from a failure.
final class OptionGrammarTests: CLITestCase {
    private let keys = ["K": "grammar key", "K2": "other grammar key"]

    func testGlobalOptionsBeforeTheCommandActAsAfterIt() throws {
        let db = try makeShellDatabase("g.db", key: "grammar key", rows: 5)
        let before = try cipherctl(["--json", "--busy-timeout", "200", "open", db, "--key-env", "K"], environment: keys)
        let after = try cipherctl(["open", db, "--key-env", "K", "--json", "--busy-timeout", "200"], environment: keys)
        XCTAssertEqual(before.code, 0, before.stderr)
        XCTAssertEqual(try jsonObject(before.stdout)["page_count"] as? Int, try jsonObject(after.stdout)["page_count"] as? Int)
        let version = try cipherctl(["--json", "--version"])
        XCTAssertEqual(try jsonObject(version.stdout)["cipherctl"] as? String, "0.1.0")
    }

    func testACommandsOwnOptionBeforeTheCommandIsAUsageErrorNamingTheGlobalOnes() throws {
        let db = try makeShellDatabase("g.db", key: "grammar key", rows: 5)
        let result = try cipherctl(["--key-env", "K", "open", db], environment: keys)
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.stderr.contains("unknown option '--key-env' before the command"), result.stderr)
        XCTAssertTrue(result.stderr.contains("--json"), result.stderr)
    }

    func testAnArgumentAfterABareBackupIsRefusedBeforeAnyDatabaseIsTouched() throws {
        let db = try makeShellDatabase("g.db", key: "grammar key", rows: 5)
        let other = try makeShellDatabase("other.db", key: "grammar key", rows: 5)
        let before = try [db, other].map { try fingerprint($0).0 }
        let result = try cipherctl(["rekey", db, "--backup", other, "--key-env", "K", "--new-key-env", "K2"], environment: keys)
        XCTAssertEqual(result.code, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("write --backup=VALUE"), result.stderr)
        XCTAssertEqual(try [db, other].map { try fingerprint($0).0 }, before, "a refused command line changed a database")
        XCTAssertTrue(try folderListing(path("")).keys.allSatisfy { !$0.contains("backup") && !$0.contains("cipherctl-tmp") })
    }

    func testQueryRowsTakeTheirShapeFromFormatAloneAndJSONAloneIsRefused() throws {
        let db = try makeShellDatabase("g.db", key: "grammar key", rows: 3)
        let alone = try cipherctl(["query", db, "SELECT 1", "--key-env", "K", "--json"], environment: keys)
        XCTAssertEqual(alone.code, 2)
        XCTAssertTrue(alone.stderr.contains("--format json"), alone.stderr)
        XCTAssertEqual(alone.stdout, "")
        let csv = try cipherctl(["query", db, "SELECT 1 AS one", "--key-env", "K", "--json", "--format", "csv"], environment: keys)
        XCTAssertEqual(csv.code, 0, csv.stderr)
        XCTAssertEqual(csv.stdout, "one\r\n1\r\n")
        let failed = try cipherctl(["query", db, "SELECT nope", "--key-env", "K", "--json", "--format", "csv"], environment: keys)
        XCTAssertEqual(try jsonObject(failed.stderr)["exit_code"] as? Int, 1, failed.stderr)
    }

    func testDiffOfDifferentDatabasesExits8AndAFailureExits1OrMore() throws {
        let first = try makeShellDatabase("a.db", key: "grammar key", rows: 5)
        let second = try makeShellDatabase("b.db", key: "grammar key", rows: 6)
        XCTAssertEqual(try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K"], environment: keys).code, 8)
        XCTAssertEqual(try cipherctl(["diff", first, first, "--key-env", "K", "--other-key-env", "K"], environment: keys).code, 0)
        XCTAssertEqual(try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K2"], environment: keys).code, 3)
    }
}
