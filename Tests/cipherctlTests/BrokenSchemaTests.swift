import Foundation
import XCTest

/// The right key on a file whose every page is whole but whose schema SQLite cannot read is
/// damage (exit 4, naming the schema), not a wrong key; a wrong key on the same file is still
/// exit 3, and nothing is written either way.
final class BrokenSchemaTests: CLITestCase {
    func testTheRightKeyOnAnUnreadableSchemaIsExit4AndAWrongKeyStillExit3() throws {
        let database = try makeShellDatabase("schema.db", key: "right key", rows: 20)
        try rewriteSchema(database, key: "right key", "UPDATE sqlite_schema SET sql = 'CREATE TABLE items(' WHERE name = 'items';")
        let pages = try sqlcipher(database, "PRAGMA key = 'right key';\nPRAGMA cipher_integrity_check;")
        XCTAssertFalse((pages.stdout + pages.stderr).contains("HMAC"), "every HMAC passes: \(pages.stdout)\(pages.stderr)")
        let before = try fingerprint(database)
        for command in [["open", database], ["query", database, "SELECT 1"], ["dump", database]] {
            let right = try cipherctl(command + ["--key-env", "K"], environment: ["K": "right key"])
            XCTAssertEqual(right.code, 4, "\(command[0]): \(right.stderr)")
            XCTAssertTrue(right.stderr.contains("the schema"), right.stderr)
            let wrong = try cipherctl(command + ["--key-env", "K"], environment: ["K": "wrong key"])
            XCTAssertEqual(wrong.code, 3, "\(command[0]): \(wrong.stderr)")
        }
        XCTAssertEqual(try fingerprint(database).0, before.0)
    }
}
