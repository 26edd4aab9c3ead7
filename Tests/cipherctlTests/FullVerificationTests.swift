import Foundation
import XCTest

/// `--verify full` runs SQLite's whole integrity check on the copy: a source whose index no
/// longer matches its table (every HMAC valid, so only that check can tell) is refused with
/// exit 4 by export and rekey alike, with nothing left behind and the original unchanged.
final class FullVerificationTests: CLITestCase {
    private let keys = ["K": "source key", "T": "target key"]

    /// A database whose index `a_x` is declared on another column than it was built on.
    private func makeIndexMismatch() throws -> String {
        let database = try makeShellDatabase("mismatch.db", key: "source key", extraSQL: """
            CREATE TABLE a(id INTEGER PRIMARY KEY, x, z);
            WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 50) INSERT INTO a SELECT n, n, 1000 - n FROM c;
            CREATE INDEX a_x ON a(x);
            """)
        try rewriteSchema(database, key: "source key", "UPDATE sqlite_schema SET sql = 'CREATE INDEX a_x ON a(z)' WHERE name = 'a_x';")
        let check = try sqlcipherOK(database, "PRAGMA key = 'source key';\nPRAGMA integrity_check;")
        XCTAssertTrue(check.contains("missing from index a_x"), "the shell sees the damage: \(check)")
        return database
    }

    func testExportWithFullVerificationOfAnIndexMismatchExits4AndLeavesNoCopy() throws {
        let source = try makeIndexMismatch()
        let before = try fingerprint(source)
        let destination = path("copy.db")
        let result = try cipherctl(["export", source, destination, "--key-env", "K", "--to-key-env", "T", "--verify", "full"], environment: keys)
        XCTAssertEqual(result.code, 4, result.stderr)
        XCTAssertTrue(result.stderr.contains("missing from index a_x"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").filter { $0.hasPrefix("cipherctl: error:") }.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("more)"), "a long list is cut short: \(result.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        XCTAssertEqual(try fingerprint(source).0, before.0)
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testRekeyWithFullVerificationOfAnIndexMismatchExits4AndKeepsTheOldKey() throws {
        let database = try makeIndexMismatch()
        let before = try fingerprint(database)
        let result = try cipherctl(["rekey", database, "--key-env", "K", "--new-key-env", "T", "--verify", "full"], environment: keys)
        XCTAssertEqual(result.code, 4, result.stderr)
        XCTAssertEqual(try fingerprint(database).0, before.0, "the file is unchanged")
        XCTAssertEqual(try temporaryLeftovers(), [])
    }
}
