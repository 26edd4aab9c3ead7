import Foundation
import XCTest

final class SaltCommandTests: CLITestCase {
    private let key = ["K": "salty key 3"]

    func testSaltFromTheHeaderMatchesTheShellsPragmaAndNeedsNoKey() throws {
        let db = try makeShellDatabase("a.db", key: "salty key 3", rows: 5)
        let shell = try sqlcipherOK(db, "PRAGMA key = 'salty key 3'; PRAGMA cipher_salt;").split(separator: "\n").last.map(String.init)
        let result = try cipherctl(["salt", db], environment: [:])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(result.stdout, (shell ?? "?") + "\n")
        let json = try jsonObject(try cipherctl(["salt", db, "--json"], environment: [:]).stdout)
        XCTAssertEqual(json["source"] as? String, "file-header")
        XCTAssertEqual(json["salt"] as? String, shell)
        XCTAssertEqual(json["path"] as? String, db)
    }

    func testSaltWithAKeyIsConfirmedByThePragmaAndSavedOwnerOnly() throws {
        let db = try makeShellDatabase("a.db", key: "salty key 3", rows: 5)
        let output = path("a.salt")
        let result = try cipherctl(["salt", db, "--key-env", "K", "--output", output, "--json"], environment: key)
        XCTAssertEqual(result.code, 0, result.stderr)
        let json = try jsonObject(result.stdout)
        XCTAssertEqual(json["source"] as? String, "pragma")
        let salt = try XCTUnwrap(json["salt"] as? String)
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), salt + "\n")
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int).map { $0 & 0o777 }, 0o600)
        let again = try cipherctl(["salt", db, "--output", output], environment: [:])
        XCTAssertEqual(again.code, 5)
        let wrong = try cipherctl(["salt", db, "--key-env", "K"], environment: ["K": "wrong"])
        XCTAssertEqual(wrong.code, 3)
    }

    func testPlaintextFilesHaveNoSaltAndPlaintextHeaderSaltsComeFromOutside() throws {
        let plain = path("plain.db")
        try sqlcipherOK(plain, "CREATE TABLE t(x);")
        let plainResult = try cipherctl(["salt", plain], environment: [:])
        XCTAssertEqual(plainResult.code, 1)
        XCTAssertEqual(plainResult.stderr, "cipherctl: error: '\(plain)' has no salt to read: it is a plaintext SQLite database, which has no salt\n")

        let salt = "00112233445566778899aabbccddeeff"
        let header = try makeShellDatabase("ph.db", key: "salty key 3", rows: 5, extraSQL: "PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(salt)'\";")
        let missing = try cipherctl(["salt", header], environment: [:])
        XCTAssertEqual(missing.code, 1)
        XCTAssertTrue(missing.stderr.contains("kept outside the file\n"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("hint: it must come from where it was stored (--salt or --salt-file)"), missing.stderr)
        let confirmed = try cipherctl(["salt", header, "--key-env", "K", "--salt", salt], environment: key)
        XCTAssertEqual(confirmed.code, 0, confirmed.stderr)
        XCTAssertEqual(confirmed.stdout, salt + "\n")
    }

    /// A salt option beside a 96-digit raw key that carries another salt is exit 2 for every
    /// command that reads or writes with it (SQLCipher would take the key's without a word),
    /// and nothing is written; the same salt is accepted.
    func testASaltThatDisagreesWithTheRawKeysOwnIsExit2AndWritesNothing() throws {
        let raw = String(repeating: "7", count: 64) + String(repeating: "9", count: 32)
        let other = String(repeating: "5", count: 32)
        let environment = ["R": raw, "K": "salty key 3"]
        let created = try cipherctl(["open", path("r.db"), "--create", "--key-env", "R", "--raw-key"], environment: environment)
        XCTAssertEqual(created.code, 0, created.stderr)
        let before = try Data(contentsOf: URL(fileURLWithPath: path("r.db")))
        let cases: [[String]] = [
            ["open", path("r.db"), "--key-env", "R", "--raw-key", "--salt", other],
            ["query", path("r.db"), "SELECT 1", "--key-env", "R", "--raw-key", "--salt", other],
            ["open", path("new.db"), "--create", "--key-env", "R", "--raw-key", "--salt", other],
            ["export", path("r.db"), path("out.db"), "--key-env", "R", "--raw-key", "--to-key-env", "R", "--to-raw-key", "--to-salt=" + other],
            ["rekey", path("r.db"), "--key-env", "R", "--raw-key", "--new-key-env", "R", "--new-raw-key", "--new-salt=" + other, "--new-kdf-iter", "5000"],
        ]
        for arguments in cases {
            let result = try cipherctl(arguments, environment: environment)
            XCTAssertEqual(result.code, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("differs from the one the raw key carries"), "\(arguments): \(result.stderr)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("r.db"))), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["r.db"])
        let same = try cipherctl(["open", path("r.db"), "--key-env", "R", "--raw-key", "--salt", String(raw.suffix(32))], environment: environment)
        XCTAssertEqual(same.code, 0, same.stderr)
    }
}
