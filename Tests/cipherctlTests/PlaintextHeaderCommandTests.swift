import Foundation
import XCTest

final class PlaintextHeaderCommandTests: CLITestCase {
    private let key = ["K": "header key 5"]
    private let keySQL = "PRAGMA key = 'header key 5';"

    private func headerSQL(_ size: Int, _ salt: String) -> String {
        keySQL + " PRAGMA cipher_plaintext_header_size = \(size); PRAGMA cipher_salt = \"x'\(salt)'\";"
    }

    func testStatusNeedsNoKeyAndNamesEachKindOfFile() throws {
        let encrypted = try makeShellDatabase("a.db", key: "header key 5", rows: 5)
        let plain = path("plain.db")
        try sqlcipherOK(plain, "CREATE TABLE t(x);")
        let header = try makeShellDatabase("ph.db", key: "header key 5", rows: 5, extraSQL: "PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'000102030405060708090a0b0c0d0e0f'\";")
        let before = try fingerprint(encrypted)
        let expected: [(String, Bool, String)] = [(encrypted, false, "opaque"), (plain, false, "plaintext"), (header, true, "plaintext-header")]
        for (db, has, kind) in expected {
            let result = try cipherctl(["plaintext-header", db, "--json"], environment: [:])
            XCTAssertEqual(result.code, 0, result.stderr)
            let json = try jsonObject(result.stdout)
            XCTAssertEqual(json["plaintext_header"] as? Bool, has, db)
            XCTAssertEqual(json["kind"] as? String, kind, db)
        }
        XCTAssertTrue(try cipherctl(["plaintext-header", header], environment: [:]).stdout.contains("has a SQLCipher plaintext header"))
        XCTAssertEqual(try fingerprint(encrypted).0, before.0)
        XCTAssertEqual(try fingerprint(encrypted).1, before.1)
    }

    func testMoveToAPlaintextHeaderAndBackKeepsContentAndOpensInTheShell() throws {
        let db = try makeShellDatabase("a.db", key: "header key 5", rows: 300)
        let checksum = try XCTUnwrap(contentChecksum(db, keySQL: keySQL))
        let saltFile = path("a.salt")
        let moved = try cipherctl(["plaintext-header", db, "--size", "32", "--key-env", "K", "--salt-output", saltFile, "--json"], environment: key)
        XCTAssertEqual(moved.code, 0, moved.stderr)
        let report = try jsonObject(moved.stdout)
        let salt = try XCTUnwrap(report["salt"] as? String)
        XCTAssertEqual(report["new_header_size"] as? Int, 32)
        XCTAssertEqual(report["changed"] as? Bool, true)
        XCTAssertEqual(try String(contentsOfFile: saltFile, encoding: .utf8), salt + "\n")
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: saltFile)[.posixPermissions] as? Int).map { $0 & 0o777 }, 0o600)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16), Data("SQLite format 3\u{0}".utf8))
        XCTAssertEqual(try contentChecksum(db, keySQL: headerSQL(32, salt)), checksum)
        XCTAssertNil(try contentChecksum(db, keySQL: keySQL), "the shell must need the header size and salt now")
        let opened = try cipherctl(["open", db, "--key-env", "K", "--salt-file", saltFile, "--check"], environment: key)
        XCTAssertEqual(opened.code, 0, opened.stderr)
        XCTAssertEqual(try cipherctl(["salt", db, "--key-env", "K", "--salt-file", saltFile], environment: key).stdout, salt + "\n")

        let back = try cipherctl(["plaintext-header", db, "--size", "0", "--key-env", "K", "--salt", salt], environment: key)
        XCTAssertEqual(back.code, 0, back.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16).map { String(format: "%02x", $0) }.joined(), salt)
        XCTAssertEqual(try contentChecksum(db, keySQL: keySQL), checksum)
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// A run killed while it wrote the salt file leaves only that file's temporary copy (the
    /// salt file appears whole or not at all); here the copy is forged (Scripts/faults kills
    /// real runs at that write), and the rerun sweeps it and finishes the move.
    func testATemporarySaltFileLikeAKilledRunsIsSweptByTheRerunWhichFinishes() throws {
        let db = try makeShellDatabase("a.db", key: "header key 5", rows: 20)
        let saltFile = path("a.salt")
        let leftover = try writeFile("a.salt.cipherctl-tmp-999999999-abc", "00112233")
        let moved = try cipherctl(["plaintext-header", db, "--size", "32", "--key-env", "K", "--salt-output", saltFile, "--json"], environment: key)
        XCTAssertEqual(moved.code, 0, moved.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover), "the killed run's temporary salt file is swept")
        XCTAssertTrue((try jsonObject(moved.stdout)["removed_leftovers"] as? [String] ?? []).contains(leftover), moved.stdout)
        let salt = try String(contentsOfFile: saltFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(salt.count, 32)
        XCTAssertEqual(try sqlcipherOK(db, headerSQL(32, salt) + " SELECT count(*) FROM items;"), "ok\n20\n")
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testOtherSizesWorkAndWALModeIsKept() throws {
        let db = try makeShellDatabase("wal.db", key: "header key 5", rows: 100, extraSQL: "PRAGMA journal_mode = WAL;")
        let checksum = try XCTUnwrap(contentChecksum(db, keySQL: keySQL))
        let moved = try cipherctl(["plaintext-header", db, "--size", "64", "--key-env", "K", "--json", "--salt-output", path("moved.salt")], environment: key)
        XCTAssertEqual(moved.code, 0, moved.stderr)
        let salt = try XCTUnwrap(try jsonObject(moved.stdout)["salt"] as? String)
        XCTAssertEqual(try contentChecksum(db, keySQL: headerSQL(64, salt)), checksum)
        XCTAssertEqual(try sqlcipherOK(db, headerSQL(64, salt) + " PRAGMA journal_mode;").split(separator: "\n").last, "wal")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"))
    }

    func testShellPlaintextHeaderDatabaseOpensWithSaltOrARawKeyCarryingIt() throws {
        let salt = "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
        let raw = String(repeating: "5c", count: 32)
        let db = path("raw-ph.db")
        try sqlcipherOK(db, """
            PRAGMA key = "x'\(raw)\(salt)'";
            PRAGMA cipher_plaintext_header_size = 32;
            CREATE TABLE t(x); INSERT INTO t VALUES (42);
            """)
        let withRaw = try cipherctl(["open", db, "--key-env", "R", "--raw-key", "--counts"], environment: ["R": raw + salt])
        XCTAssertEqual(withRaw.code, 0, withRaw.stderr)
        XCTAssertTrue(withRaw.stdout.contains("salt:             \(salt)"), withRaw.stdout)
        let withSalt = try cipherctl(["open", db, "--key-env", "R", "--raw-key", "--salt", salt], environment: ["R": raw])
        XCTAssertEqual(withSalt.code, 0, withSalt.stderr)
        let wrongSalt = try cipherctl(["open", db, "--key-env", "R", "--raw-key", "--salt", String(repeating: "0", count: 32)], environment: ["R": raw])
        XCTAssertEqual(wrongSalt.code, 3)
        XCTAssertTrue(wrongSalt.stderr.hasPrefix("cipherctl: error: cannot decrypt '\(db)': wrong salt or key"), wrongSalt.stderr)
    }

    func testBadSizesAndAnExistingSaltFileLeaveTheDatabaseAlone() throws {
        let db = try makeShellDatabase("a.db", key: "header key 5", rows: 20)
        let before = try fingerprint(db)
        let odd = try cipherctl(["plaintext-header", db, "--size", "20", "--key-env", "K"], environment: key)
        XCTAssertEqual(odd.code, 2)
        XCTAssertTrue(odd.stderr.contains("--size must be 0 or a multiple of 16"), odd.stderr)
        let large = try cipherctl(["plaintext-header", db, "--size", "4032", "--key-env", "K"], environment: key)
        XCTAssertEqual(large.code, 2, large.stderr)
        let taken = try writeFile("taken.salt", "precious\n")
        let exists = try cipherctl(["plaintext-header", db, "--size", "32", "--key-env", "K", "--salt-output", taken], environment: key)
        XCTAssertEqual(exists.code, 5, exists.stderr)
        XCTAssertEqual(try String(contentsOfFile: taken, encoding: .utf8), "precious\n")
        let wrongKey = try cipherctl(["plaintext-header", db, "--size", "32", "--key-env", "K", "--salt-output", path("wrong.salt")], environment: ["K": "nope"])
        XCTAssertEqual(wrongKey.code, 3)
        XCTAssertEqual(try fingerprint(db).0, before.0)
        XCTAssertEqual(try fingerprint(db).1, before.1)
        XCTAssertEqual(try temporaryLeftovers(), [])
    }
}
