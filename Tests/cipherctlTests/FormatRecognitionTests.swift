import Foundation
import XCTest

/// Databases of every SQLCipher format, written by the `sqlcipher` shell, open without
/// settings; files that are not databases are named as such; nothing is written.
final class FormatRecognitionTests: CLITestCase {
    private let key = ["K": "format key 7"]
    private let keySQL = "PRAGMA key = 'format key 7';"

    /// (name, shell statements after the key, expected format line)
    private let formats: [(String, String, String)] = [
        ("v4", "", "SQLCipher 4 format: page size 4096, KDF iterations 256000, HMAC-SHA512, PBKDF2-HMAC-SHA512"),
        ("v3", "PRAGMA cipher_compatibility = 3;", "SQLCipher 3 format: page size 1024, KDF iterations 64000, HMAC-SHA1, PBKDF2-HMAC-SHA1"),
        ("v2", "PRAGMA cipher_compatibility = 2;", "SQLCipher 2 format: page size 1024, KDF iterations 4000, HMAC-SHA1, PBKDF2-HMAC-SHA1"),
        ("v2be", "PRAGMA cipher_compatibility = 2; PRAGMA cipher_hmac_pgno = be;",
         "SQLCipher 2 (big-endian) format: page size 1024, KDF iterations 4000, HMAC-SHA1, PBKDF2-HMAC-SHA1, HMAC page numbers big-endian"),
        ("v1", "PRAGMA cipher_compatibility = 1;", "SQLCipher 1 format: page size 1024, KDF iterations 4000, no HMAC, PBKDF2-HMAC-SHA1"),
    ]

    /// Whether `text` has a line `label: value` (any alignment).
    private func hasLine(_ text: String, _ label: String, _ value: String, separator: String = ":") -> Bool {
        text.split(separator: "\n").contains { line in
            line.hasPrefix(label + separator) && line.dropFirst(label.count + separator.count).trimmingCharacters(in: .whitespaces) == value
        }
    }

    func testEveryShellFormatOpensWithoutSettingsAndSaysWhichAndLeavesTheFileAlone() throws {
        for (index, (name, pragmas, line)) in formats.enumerated() {
            let db = try makeShellDatabase("\(name).db", key: "format key 7", rows: 50, extraSQL: pragmas)
            let before = try fingerprint(db)
            let result = try cipherctl(["open", db, "--key-env", "K", "--counts", "--verbose"], environment: key)
            XCTAssertEqual(result.code, 0, "\(name): \(result.stderr)")
            XCTAssertTrue(hasLine(result.stdout, "format", line), "\(name): \(result.stdout)")
            XCTAssertTrue(hasLine(result.stdout, "  items", "50", separator: ""), "\(name): \(result.stdout)")
            let attempts = "after \(index + 1) attempt\(index == 0 ? "" : "s")"
            XCTAssertTrue(result.stderr.contains(attempts), "\(name): \(result.stderr)")
            if index > 0 {
                XCTAssertTrue(result.stderr.contains("cipherctl: hint: '\(db)' is in the SQLCipher"), "\(name): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("--new-compat 4"), result.stderr)
            }
            let failed = try cipherctl(["open", db, "--key-env", "K"], environment: ["K": "not the key"])
            XCTAssertEqual(failed.code, 3, name)
            let after = try fingerprint(db)
            XCTAssertEqual(before.0, after.0, "\(name): bytes changed")
            XCTAssertEqual(before.1, after.1, "\(name): modification time changed")
        }
    }

    func testJSONNamesTheDetectedFormat() throws {
        let db = try makeShellDatabase("v3.db", key: "format key 7", rows: 5, extraSQL: "PRAGMA cipher_compatibility = 3;")
        let result = try cipherctl(["open", db, "--key-env", "K", "--json", "--compat", "auto"], environment: key)
        XCTAssertEqual(result.code, 0, result.stderr)
        let profile = try jsonObject(result.stdout)
        XCTAssertEqual(profile["format_version"] as? Int, 3)
        XCTAssertEqual(profile["format_detected"] as? Bool, true)
        XCTAssertEqual(profile["format_attempts"] as? Int, 2)
        let explicit = try jsonObject(try cipherctl(["open", db, "--key-env", "K", "--json", "--compat", "3"], environment: key).stdout)
        XCTAssertEqual(explicit["format_detected"] as? Bool, false)
        XCTAssertEqual(explicit["format_attempts"] as? Int, 1)
    }

    func testCustomSettingsAreFoundBySearchAndExplicitSettingsSkipTheSearch() throws {
        let db = try makeShellDatabase("custom.db", key: "format key 7", rows: 5, extraSQL: "PRAGMA cipher_page_size = 8192; PRAGMA kdf_iter = 12000;")
        let searched = try cipherctl(["open", db, "--key-env", "K"], environment: key)
        XCTAssertEqual(searched.code, 0, searched.stderr)
        XCTAssertTrue(searched.stdout.contains("SQLCipher custom format: page size 8192, KDF iterations 12000"), searched.stdout)
        XCTAssertTrue(searched.stdout.contains("settings found by search"), searched.stdout)
        let given = try cipherctl(["open", db, "--key-env", "K", "--page-size", "8192", "--kdf-iter", "12000", "--verbose"], environment: key)
        XCTAssertEqual(given.code, 0, given.stderr)
        XCTAssertTrue(given.stdout.contains("SQLCipher custom format: page size 8192, KDF iterations 12000"), given.stdout)
        XCTAssertFalse(given.stdout.contains("search"), given.stdout)
        XCTAssertFalse(given.stderr.contains("attempt"), given.stderr)
        let wrong = try cipherctl(["open", db, "--key-env", "W"], environment: ["W": "not the format key"])
        XCTAssertEqual(wrong.code, 3)
        XCTAssertTrue(wrong.stderr.contains("the SQLCipher 4, 3, 2 and 1 formats were tried, and other page sizes"), wrong.stderr)
        let v3 = try makeShellDatabase("v3.db", key: "format key 7", rows: 5, extraSQL: "PRAGMA cipher_compatibility = 3;")
        let wrongCompat = try cipherctl(["open", v3, "--key-env", "K", "--compat", "4"], environment: key)
        XCTAssertEqual(wrongCompat.code, 3)
        XCTAssertTrue(wrongCompat.stderr.contains("wrong key or cipher settings"), wrongCompat.stderr)
        let bad = try cipherctl(["open", v3, "--key-env", "K", "--compat", "five"], environment: key)
        XCTAssertEqual(bad.code, 2)
        XCTAssertTrue(bad.stderr.contains("--compat must be 1, 2, 3, 4 or auto"), bad.stderr)
    }

    func testBigEndianFormatOpensWithExplicitPageNumberOrder() throws {
        let db = try makeShellDatabase("be.db", key: "format key 7", rows: 5, extraSQL: "PRAGMA cipher_compatibility = 2; PRAGMA cipher_hmac_pgno = be;")
        XCTAssertEqual(try cipherctl(["open", db, "--key-env", "K", "--compat", "2", "--hmac-pgno", "be"], environment: key).code, 0)
        XCTAssertEqual(try cipherctl(["open", db, "--key-env", "K", "--compat", "2"], environment: key).code, 3)
    }

    func testFilesThatAreNotEncryptedDatabasesAreNamed() throws {
        let text = try writeFile("notes.txt", String(repeating: "just some notes, not a database\n", count: 20))
        let textResult = try cipherctl(["open", text, "--key-env", "K"], environment: key)
        XCTAssertEqual(textResult.code, 3)
        XCTAssertEqual(textResult.stderr.split(separator: "\n").first.map(String.init),
                       "cipherctl: error: '\(text)' is not a SQLite or SQLCipher database: it holds text")
        let noKey = try cipherctl(["open", text], environment: [:])
        XCTAssertEqual(noKey.code, 3)
        XCTAssertTrue(noKey.stderr.contains("is not a SQLite or SQLCipher database"), noKey.stderr)

        let db = try makeShellDatabase("whole.db", key: "format key 7", rows: 20)
        let truncated = path("truncated.db")
        try Data(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(5000)).write(to: URL(fileURLWithPath: truncated))
        // Cut mid-page: the key proves it a database, and the partial page is damage.
        let cut = try cipherctl(["open", truncated, "--key-env", "K"], environment: key)
        XCTAssertEqual(cut.code, 4, cut.stderr)
        XCTAssertTrue(cut.stderr.contains("page 2: is cut short: the file ends 904 bytes into it"), cut.stderr)
        // Bytes added after the last page: every row reads, and --check names the partial page.
        let added = path("added.db")
        try (Data(contentsOf: URL(fileURLWithPath: db)) + Data(repeating: 0x41, count: 1000)).write(to: URL(fileURLWithPath: added))
        let rows = try cipherctl(["query", added, "SELECT count(*) FROM items", "--key-env", "K", "--format", "value"], environment: key)
        XCTAssertEqual(rows.stdout, "20\n", rows.stderr)
        let checked = try cipherctl(["open", added, "--key-env", "K", "--check"], environment: key)
        XCTAssertEqual(checked.code, 4, checked.stderr)
        XCTAssertTrue(checked.stdout.contains("is cut short: the file ends 1000 bytes into it"), checked.stdout)

        let plain = path("plain.db")
        try sqlcipherOK(plain, "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let plainResult = try cipherctl(["open", plain], environment: [:])
        XCTAssertTrue(hasLine(plainResult.stdout, "format", "plaintext SQLite"), plainResult.stdout)
        let plainWithKey = try cipherctl(["open", plain, "--key-env", "K"], environment: key)
        XCTAssertEqual(plainWithKey.code, 3)
        XCTAssertTrue(plainWithKey.stderr.contains("plaintext SQLite database"), plainWithKey.stderr)

        let header = try makeShellDatabase("ph.db", key: "format key 7", rows: 5, extraSQL: "PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'000102030405060708090a0b0c0d0e0f'\";")
        let headerResult = try cipherctl(["open", header, "--key-env", "K"], environment: key)
        XCTAssertEqual(headerResult.code, 3)
        XCTAssertTrue(headerResult.stderr.contains("plaintext header, so its salt is not in the file"), headerResult.stderr)
        let headerNoKey = try cipherctl(["open", header], environment: [:])
        XCTAssertEqual(headerNoKey.code, 2)
        XCTAssertTrue(headerNoKey.stderr.contains("a SQLCipher database with a plaintext header: it needs its key and its salt"), headerNoKey.stderr)
    }

    func testOlderFormatsMigrateFromTheDetectedFormat() throws {
        for (name, pragmas, _) in formats.dropFirst() {
            let db = try makeShellDatabase("\(name).db", key: "format key 7", rows: 30, extraSQL: pragmas)
            let checksum = try contentChecksum(db, keySQL: keySQL + pragmas)
            XCTAssertNotNil(checksum)
            let copy = path("\(name)-v4.db")
            let exported = try cipherctl(["export", db, copy, "--key-env", "K", "--to-key-env", "K", "--to-compat", "4"], environment: key)
            XCTAssertEqual(exported.code, 0, "\(name): \(exported.stderr)")
            XCTAssertEqual(try contentChecksum(copy, keySQL: keySQL), checksum, "\(name): export")
            let rekeyed = try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "K", "--new-compat", "4"], environment: key)
            XCTAssertEqual(rekeyed.code, 0, "\(name): \(rekeyed.stderr)")
            XCTAssertEqual(try contentChecksum(db, keySQL: keySQL), checksum, "\(name): rekey")
        }
    }

    func testACheckOfAFileCutShortNamesEachPageOnceAndPointsOnlyToRecover() throws {
        let key = ["K": "format key 8"]
        let db = try makeShellDatabase("long.db", key: "format key 8", rows: 400)
        let whole = try Data(contentsOf: URL(fileURLWithPath: db))
        let pages = whole.count / 4096
        // Cut inside the last page: that page is cut short, and no page is missing as well.
        let insideLast = path("inside-last.db")
        try whole.prefix(whole.count - 1000).write(to: URL(fileURLWithPath: insideLast))
        let checked = try cipherctl(["open", insideLast, "--key-env", "K", "--check"], environment: key)
        XCTAssertEqual(checked.code, 4, checked.stderr)
        let named = checked.stdout.split(separator: "\n").filter { $0.contains("page \(pages):") }
        XCTAssertEqual(named.map(String.init), ["  page \(pages): is cut short: the file ends 3096 bytes into it"], checked.stdout)
        // Cut at a page boundary and inside one: the open fails on it, and its hint sends the
        // user on to recover, not back to the check they ran.
        for (name, size) in [("boundary.db", (pages - 2) * 4096), ("inside.db", (pages - 2) * 4096 - 500)] {
            try whole.prefix(size).write(to: URL(fileURLWithPath: path(name)))
            for check in [[], ["--check"]] {
                let result = try cipherctl(["open", path(name), "--key-env", "K"] + check, environment: key)
                XCTAssertEqual(result.code, 4, "\(name) \(check): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("hint: 'cipherctl recover' salvages"), "\(name) \(check): \(result.stderr)")
                XCTAssertFalse(result.stderr.contains("--check' lists"), "\(name) \(check): \(result.stderr)")
            }
        }
        // Cut inside page 1, no key can be proven: that is said, not "wrong key".
        try whole.prefix(3000).write(to: URL(fileURLWithPath: path("page-one.db")))
        let pageOne = try cipherctl(["open", path("page-one.db"), "--key-env", "K"], environment: key)
        XCTAssertEqual(pageOne.code, 3, pageOne.stderr)
        XCTAssertTrue(pageOne.stderr.contains("it ends inside a page (3000 bytes): cut short inside page 1"), pageOne.stderr)
        // The count is of pages, a run of missing ones included: the one cut short and the two past it.
        let counted = try cipherctl(["open", path("inside.db"), "--key-env", "K"], environment: key)
        XCTAssertTrue(counted.stderr.contains("3 damaged pages, the first: page \(pages - 2): is cut short"), counted.stderr)
    }

}
