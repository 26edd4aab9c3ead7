import Foundation
import XCTest

final class OpenCommandTests: CLITestCase {
    private let key = ["K": "correct horse battery staple"]

    func testCreatedDatabaseOpensInTheShellWithSameKeyAndSettings() throws {
        let db = path("made-by-cipherctl.db")
        let created = try cipherctl(["open", db, "--create", "--key-env", "K", "--page-size", "8192", "--kdf-iter", "20000"], environment: key)
        XCTAssertEqual(created.code, 0, created.stderr)

        try sqlcipherOK(db, """
            PRAGMA key = 'correct horse battery staple';
            PRAGMA cipher_page_size = 8192;
            PRAGMA kdf_iter = 20000;
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO t(name) VALUES ('alpha'), ('beta'), ('gamma');
            """)
        let rows = try sqlcipherOK(db, "PRAGMA key = 'correct horse battery staple'; PRAGMA cipher_page_size = 8192; PRAGMA kdf_iter = 20000; SELECT name FROM t ORDER BY id;")
        XCTAssertEqual(rows, "ok\nalpha\nbeta\ngamma\n")
        let withDefaults = try sqlcipher(db, "PRAGMA key = 'correct horse battery staple'; SELECT count(*) FROM t;")
        XCTAssertNotEqual(withDefaults.code, 0, "the shell must need the non-default settings")

        let opened = try cipherctl(["open", db, "--key-env", "K", "--page-size", "8192", "--kdf-iter", "20000", "--counts", "--json"], environment: key)
        XCTAssertEqual(opened.code, 0, opened.stderr)
        let profile = try jsonObject(opened.stdout)
        XCTAssertEqual((profile["row_counts"] as? [String: Int])?["t"], 3)
        XCTAssertEqual((profile["cipher"] as? [String: Any])?["page_size"] as? Int, 8192)
        XCTAssertEqual((profile["cipher"] as? [String: Any])?["kdf_iter"] as? Int, 20000)
    }

    func testCreatedFileIsOwnerOnly() throws {
        let db = path("new.db")
        XCTAssertEqual(try cipherctl(["open", db, "--create", "--key-env", "K"], environment: key).code, 0)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: db)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
    }

    func testShellDatabaseWithNonDefaultSettingsIsDescribed() throws {
        let db = path("made-by-shell.db")
        try sqlcipherOK(db, """
            PRAGMA key = 'correct horse battery staple';
            PRAGMA cipher_page_size = 2048;
            PRAGMA kdf_iter = 12345;
            PRAGMA cipher_hmac_algorithm = HMAC_SHA256;
            PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA256;
            CREATE TABLE a(x); CREATE TABLE b(y); CREATE INDEX ax ON a(x); CREATE VIEW v AS SELECT x FROM a;
            CREATE TRIGGER tr AFTER INSERT ON a BEGIN SELECT 1; END;
            INSERT INTO a VALUES (1), (2);
            PRAGMA user_version = 42;
            PRAGMA application_id = 99;
            PRAGMA journal_mode = WAL;
            """)
        let salt = try sqlcipherOK(db, """
            PRAGMA key = 'correct horse battery staple'; PRAGMA cipher_page_size = 2048; PRAGMA kdf_iter = 12345;
            PRAGMA cipher_hmac_algorithm = HMAC_SHA256; PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA256;
            PRAGMA cipher_salt;
            """).split(separator: "\n").last.map(String.init)

        let result = try cipherctl([
            "open", db, "--key-env", "K", "--page-size", "2048", "--kdf-iter", "12345",
            "--hmac-algorithm", "SHA256", "--kdf-algorithm", "PBKDF2_HMAC_SHA256", "--json", "--counts",
        ], environment: key)
        XCTAssertEqual(result.code, 0, result.stderr)
        let profile = try jsonObject(result.stdout)
        let cipher = try XCTUnwrap(profile["cipher"] as? [String: Any])
        XCTAssertEqual(cipher["page_size"] as? Int, 2048)
        XCTAssertEqual(cipher["kdf_iter"] as? Int, 12345)
        XCTAssertEqual(cipher["hmac_algorithm"] as? String, "HMAC_SHA256")
        XCTAssertEqual(cipher["kdf_algorithm"] as? String, "PBKDF2_HMAC_SHA256")
        XCTAssertTrue(cipher["compatibility"] is NSNull)
        XCTAssertEqual(cipher["salt"] as? String, salt)
        XCTAssertEqual(profile["encrypted"] as? Bool, true)
        XCTAssertEqual(profile["journal_mode"] as? String, "wal")
        XCTAssertEqual(profile["user_version"] as? Int, 42)
        XCTAssertEqual(profile["application_id"] as? Int, 99)
        XCTAssertEqual(profile["tables"] as? Int, 2)
        XCTAssertEqual(profile["indexes"] as? Int, 1)
        XCTAssertEqual(profile["views"] as? Int, 1)
        XCTAssertEqual(profile["triggers"] as? Int, 1)
        XCTAssertEqual(profile["row_counts"] as? [String: Int], ["a": 2, "b": 0])
    }

    func testShellSQLCipher3DatabaseOpensWithCompat3() throws {
        let db = path("v3.db")
        try sqlcipherOK(db, "PRAGMA key = 'correct horse battery staple'; PRAGMA cipher_compatibility = 3; CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let result = try cipherctl(["open", db, "--key-env", "K", "--compat", "3"], environment: key)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("format:           SQLCipher 3 format: page size 1024, KDF iterations 64000, HMAC-SHA1, PBKDF2-HMAC-SHA1"), result.stdout)
        XCTAssertTrue(result.stdout.contains("page size:        1024"), result.stdout)
    }

    func testWrongKeyExits3WithOneLineAndLeavesFileUntouched() throws {
        let db = path("a.db")
        try sqlcipherOK(db, "PRAGMA key = 'correct horse battery staple'; CREATE TABLE t(x);")
        let before = try fingerprint(db)
        let result = try cipherctl(["open", db, "--key-env", "K"], environment: ["K": "wrong-key-zebra-42"])
        XCTAssertEqual(result.code, 3)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr.split(separator: "\n").first, "cipherctl: error: cannot decrypt '\(db)': wrong key (the SQLCipher 4, 3, 2 and 1 formats were tried, and other page sizes, KDF settings and HMACs searched)")
        XCTAssertFalse(result.stderr.contains("ERROR CORE"), "SQLCipher's own log must be silenced: \(result.stderr)")
        XCTAssertFalse(result.allOutput.contains("wrong-key-zebra-42"))
        let after = try fingerprint(db)
        XCTAssertEqual(before.0, after.0)
        XCTAssertEqual(before.1, after.1)
    }

    func testWrongKeyUnderJSONIsOneJSONObjectOnStderr() throws {
        let db = path("a.db")
        try sqlcipherOK(db, "PRAGMA key = 'correct horse battery staple'; CREATE TABLE t(x);")
        let result = try cipherctl(["open", db, "--key-env", "K", "--json"], environment: ["K": "nope"])
        XCTAssertEqual(result.code, 3)
        XCTAssertEqual(result.stdout, "")
        let error = try jsonObject(result.stderr)
        XCTAssertEqual(error["exit_code"] as? Int, 3)
        XCTAssertEqual(error["error"] as? String, "cannot decrypt '\(db)': wrong key (the SQLCipher 4, 3, 2 and 1 formats were tried, and other page sizes, KDF settings and HMACs searched)")
    }

    func testVerboseLetsSQLCipherLogWhenSettingsAreGiven() throws {
        let db = path("a.db")
        try sqlcipherOK(db, "PRAGMA key = 'correct horse battery staple'; CREATE TABLE t(x);")
        let result = try cipherctl(["open", db, "--key-env", "K", "--compat", "4", "--verbose"], environment: ["K": "nope"])
        XCTAssertEqual(result.code, 3)
        XCTAssertTrue(result.stderr.contains("hmac check failed"), result.stderr)
    }

    func testPlaintextDatabaseIsReportedWithoutKeyAndRefusedWithOne() throws {
        let db = path("plain.db")
        let made = try run("/usr/bin/env", ["sqlcipher", db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);"], stdin: nil, environment: [:])
        XCTAssertEqual(made.code, 0)
        let plain = try cipherctl(["open", db, "--counts"])
        XCTAssertEqual(plain.code, 0, plain.stderr)
        XCTAssertTrue(plain.stdout.contains("encrypted:      no"), plain.stdout)
        XCTAssertTrue(plain.stdout.contains("format:         plaintext SQLite"), plain.stdout)

        let keyed = try cipherctl(["open", db, "--key-env", "K"], environment: key)
        XCTAssertEqual(keyed.code, 3)
        XCTAssertTrue(keyed.stderr.contains("plaintext SQLite database"), keyed.stderr)
    }

    func testFilesThatAreNotDatabasesAreNamed() throws {
        let empty = try writeFile("empty.db", "")
        let short = try writeFile("short.db", String(repeating: "x", count: 100))
        let cases: [(String, Int32, String)] = [
            (empty, 3, "the file is empty"),
            (short, 3, "too short to hold one database page"),
            (path("missing.db"), 5, "does not exist"),
            (directory.path, 5, "is not a regular file"),
        ]
        for (target, code, fragment) in cases {
            let result = try cipherctl(["open", target, "--key-env", "K"], environment: key)
            XCTAssertEqual(result.code, code, target)
            XCTAssertTrue(result.stderr.contains(fragment), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("missing.db")), "open must never create a file by accident")
    }

    func testPlaintextHeaderFileIsNamedAndOpensWithSizeAndSalt() throws {
        let db = path("ph.db")
        let salt = "0102030405060708090a0b0c0d0e0f10"
        try sqlcipherOK(db, """
            PRAGMA key = 'correct horse battery staple';
            PRAGMA cipher_plaintext_header_size = 32;
            PRAGMA cipher_salt = "x'\(salt)'";
            CREATE TABLE t(x); INSERT INTO t VALUES (1);
            """)
        let bare = try cipherctl(["open", db, "--key-env", "K"], environment: key)
        XCTAssertEqual(bare.code, 3)
        XCTAssertTrue(bare.stderr.contains("plaintext header"), bare.stderr)
        let noSalt = try cipherctl(["open", db, "--key-env", "K", "--plaintext-header-size", "32"], environment: key)
        XCTAssertEqual(noSalt.code, 3)
        XCTAssertTrue(noSalt.stderr.contains("salt"), noSalt.stderr)
        let full = try cipherctl(["open", db, "--key-env", "K", "--plaintext-header-size", "32", "--salt", salt, "--json"], environment: key)
        XCTAssertEqual(full.code, 0, full.stderr)
        XCTAssertEqual((try jsonObject(full.stdout)["cipher"] as? [String: Any])?["salt"] as? String, salt)
    }

    func testCreateRefusesAnExistingFileWithExit5() throws {
        let db = try writeFile("exists.db", "precious")
        let result = try cipherctl(["open", db, "--create", "--key-env", "K"], environment: key)
        XCTAssertEqual(result.code, 5)
        XCTAssertTrue(result.stderr.contains("already exists"), result.stderr)
        XCTAssertEqual(try String(contentsOfFile: db, encoding: .utf8), "precious")
    }

    func testCheckPassesOnHealthyAndNamesThePageOfADamagedDatabase() throws {
        let db = path("a.db")
        try sqlcipherOK(db, """
            PRAGMA key = 'correct horse battery staple';
            CREATE TABLE t(x);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 500) INSERT INTO t SELECT randomblob(100) FROM c;
            """)
        let healthy = try cipherctl(["open", db, "--key-env", "K", "--check"], environment: key)
        XCTAssertEqual(healthy.code, 0, healthy.stderr)
        XCTAssertTrue(healthy.stdout.contains("integrity:") && healthy.stdout.contains(" ok\n"), healthy.stdout)

        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: db))
        try handle.seek(toOffset: 4096 * 2 + 300)
        handle.write(Data([0x5A, 0xA5]))
        try handle.close()
        let damaged = try cipherctl(["open", db, "--key-env", "K", "--check", "--json"], environment: key)
        XCTAssertEqual(damaged.code, 4)
        let integrity = try XCTUnwrap(try jsonObject(damaged.stdout)["integrity"] as? [String: Any])
        XCTAssertEqual(integrity["ok"] as? Bool, false)
        XCTAssertEqual(integrity["failed_pages"] as? [Int], [3])
        XCTAssertEqual(try jsonObject(damaged.stderr)["exit_code"] as? Int, 4)
    }

    func testDatabaseLockedByAnotherProcessExits6AfterTheBusyTimeout() throws {
        let db = path("locked.db")
        try sqlcipherOK(db, "PRAGMA key = 'correct horse battery staple'; CREATE TABLE t(x);")
        let (holder, input) = try startShellHolding(
            db, "PRAGMA busy_timeout = 10000;\nPRAGMA key = 'correct horse battery staple';\nBEGIN EXCLUSIVE;\nINSERT INTO t VALUES (1);\n")
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }

        var result = try cipherctl(["open", db, "--key-env", "K", "--busy-timeout", "100"], environment: key)
        for _ in 0..<50 where result.code == 0 {
            Thread.sleep(forTimeInterval: 0.1)
            result = try cipherctl(["open", db, "--key-env", "K", "--busy-timeout", "100"], environment: key)
        }
        XCTAssertEqual(result.code, 6, result.stderr)
        XCTAssertTrue(result.stderr.contains("locked by another connection"), result.stderr)
    }

    func testBadSettingValuesAreUsageErrors() throws {
        let db = path("a.db")
        for arguments in [["--page-size", "1000"], ["--compat", "9"], ["--hmac-algorithm", "MD5"], ["--hmac", "maybe"], ["--kdf-iter", "many"],
                          ["--salt", "abcd"], ["--plaintext-header-size", "20"], ["--busy-timeout", "-1"]] {
            let result = try cipherctl(["open", db, "--key-env", "K"] + arguments, environment: key)
            XCTAssertEqual(result.code, 2, arguments.joined(separator: " "))
            XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: "), result.stderr)
        }
    }

    func testCreatingAPlaintextHeaderDatabaseNeedsAChosenSalt() throws {
        let db = path("ph.db")
        let refused = try cipherctl(["open", db, "--create", "--key-env", "K", "--plaintext-header-size", "32"], environment: key)
        XCTAssertEqual(refused.code, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db))

        let salt = "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
        let created = try cipherctl(["open", db, "--create", "--key-env", "K", "--plaintext-header-size", "32", "--salt", salt], environment: key)
        XCTAssertEqual(created.code, 0, created.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16), Data("SQLite format 3\u{0}".utf8))
        let shell = try sqlcipherOK(db, """
            PRAGMA key = 'correct horse battery staple';
            PRAGMA cipher_plaintext_header_size = 32;
            PRAGMA cipher_salt = "x'\(salt)'";
            SELECT count(*) FROM sqlite_master;
            """)
        XCTAssertEqual(shell, "ok\n0\n")
    }

    /// SQLCipher reads `x'` and 64 hex digits and any one byte as a raw key, whatever the
    /// option that gave it; so does cipherctl, or its own derivation would disagree.
    func testAPassphraseSQLCipherReadsAsARawKeyIsThatRawKey() throws {
        let digits = String(repeating: "3c9e", count: 16)
        for (index, text) in ["x'\(digits)'", "x'\(digits)Z"].enumerated() {
            let made = path("made\(index).db")
            try sqlcipherOK(made, "PRAGMA key = \"\(text)\";\nCREATE TABLE t(x); INSERT INTO t VALUES (\(index));")
            let keyFile = try writeFile("shaped\(index).key", text)
            let opened = try cipherctl(["open", made, "--key-file", keyFile])
            XCTAssertEqual(opened.code, 0, "\(text.suffix(2)): \(opened.stderr)")
            let created = path("created\(index).db")
            let creation = try cipherctl(["open", created, "--create", "--key-file", keyFile])
            XCTAssertEqual(creation.code, 0, "\(text.suffix(2)): \(creation.stderr)")
            XCTAssertEqual(try sqlcipherOK(created, "PRAGMA key = \"x'\(digits)'\";\nSELECT count(*) FROM sqlite_master;"), "ok\n0\n")
        }
    }
}
