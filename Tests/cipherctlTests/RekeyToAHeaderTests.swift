import Foundation
import XCTest

/// A rekey that moves a database to a plaintext header: the file then keeps its salt outside
/// itself, so the salt must be one the user chose, and a rerun under it is already done.
final class RekeyToAHeaderTests: CLITestCase {
    private let keys = ["K": "header key", "N": "new header key"]
    private let salt = "00112233445566778899aabbccddeeff"

    func testAMoveToAHeaderWithoutAChosenSaltExits2AndLeavesTheFileUnchanged() throws {
        let db = try makeShellDatabase("a.db", key: "header key", rows: 20)
        let before = try fingerprint(db).0
        for extra in [["--new-salt"], []] {
            let result = try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "N", "--new-plaintext-header-size", "32"] + extra, environment: keys)
            XCTAssertEqual(result.code, 2, "\(extra): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--new-salt=HEX"), result.stderr)
            XCTAssertEqual(try fingerprint(db).0, before, "\(extra): the file changed")
        }
    }

    func testAMoveToAHeaderUnderAChosenSaltOpensInTheShellAndARerunIsAlreadyDone() throws {
        let db = try makeShellDatabase("a.db", key: "header key", rows: 20)
        let arguments = ["rekey", db, "--key-env", "K", "--new-key-env", "N", "--new-plaintext-header-size", "32", "--new-salt=" + salt, "--json"]
        let first = try cipherctl(arguments, environment: keys)
        XCTAssertEqual(first.code, 0, first.stderr)
        let count = try sqlcipherOK(db, "PRAGMA key = 'new header key'; PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(salt)'\"; SELECT count(*) FROM items;")
        XCTAssertEqual(count.split(separator: "\n").last, "20")
        let again = try cipherctl(arguments, environment: keys)
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertEqual(try jsonObject(again.stdout)["action"] as? String, "already-done")
    }
}
