import Foundation
import XCTest

/// Files written by an independent SQLCipher build (the sqlcipher3-binary wheel, which bundles
/// its own SQLCipher 4.12; Scripts/bootstrap --test-tools pins it in .build-interop) open
/// without their settings, and that build reads them back after cipherctl's rekey and
/// `export --to-compat same`, with the same rows.
final class InteropTests: CLITestCase {
    private let keys = ["K": "interop key", "N": "interop new key", "D": "interop copy key"]
    private let python = CLITestCase.packageRoot.appendingPathComponent(".build-interop/bin/python").path

    /// Runs `statements` on `database` in the independent build after `PRAGMA key = key` and
    /// `pragmas`; returns what the last one selects, a row a line.
    private func independent(_ database: String, key: String, pragmas: [String], _ statements: [String]) throws -> CommandResult {
        let program = """
            import json, sys, sqlcipher3
            database, key, pragmas, statements = json.loads(sys.argv[1])
            connection = sqlcipher3.connect(database)
            connection.execute("PRAGMA key = '" + key + "'")
            for pragma in pragmas:
                connection.execute(pragma)
            rows = []
            for statement in statements:
                rows = connection.execute(statement).fetchall()
            connection.commit()
            connection.close()
            print("\\n".join("|".join(str(value) for value in row) for row in rows))
            """
        let arguments = try JSONSerialization.data(withJSONObject: [database, key, pragmas, statements])
        return try run(python, ["-c", program, String(decoding: arguments, as: UTF8.self)], stdin: nil, environment: [:])
    }

    func testFilesOfAnIndependentSQLCipherOpenWithoutSettingsAndReadBackAfterRekeyExportAndAPageEngineResalt() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: python), "run Scripts/bootstrap --test-tools")
        let settings: [(String, [String])] = [
            ("custom KDF and page", ["PRAGMA kdf_iter = 23456", "PRAGMA cipher_page_size = 8192"]),
            ("SHA256", ["PRAGMA cipher_hmac_algorithm = HMAC_SHA256", "PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA256"]),
            ("HMAC off", ["PRAGMA cipher_use_hmac = OFF", "PRAGMA kdf_iter = 5000"]),
            ("SQLCipher 3", ["PRAGMA cipher_compatibility = 3"]),
            ("SHA1, big-endian", ["PRAGMA cipher_hmac_algorithm = HMAC_SHA1", "PRAGMA cipher_hmac_pgno = be", "PRAGMA kdf_iter = 777"]),
        ]
        let content = "SELECT count(*), sum(length(b)), group_concat(t, ',') FROM t"
        for (number, (label, pragmas)) in settings.enumerated() {
            let db = path("py\(number).db")
            let written = try independent(db, key: keys["K"]!, pragmas: pragmas, [
                "CREATE TABLE t(id INTEGER PRIMARY KEY, t TEXT, b BLOB)",
                "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300) INSERT INTO t(t, b) SELECT 'row ' || i, randomblob(i) FROM c",
                content,
            ])
            XCTAssertEqual(written.code, 0, "\(label): \(written.stderr)")
            let expected = written.stdout

            let opened = try cipherctl(["open", db, "--key-env", "K", "--json"], environment: keys)
            XCTAssertEqual(opened.code, 0, "\(label): \(opened.stderr)")
            let rekeyed = try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "N"], environment: keys)
            XCTAssertEqual(rekeyed.code, 0, "\(label): \(rekeyed.stderr)")
            let afterRekey = try independent(db, key: keys["N"]!, pragmas: pragmas, [content])
            XCTAssertEqual(afterRekey.stdout, expected, "\(label): the independent build reads the rekeyed file: \(afterRekey.stderr)")

            let copy = path("py\(number)-copy.db")
            let exported = try cipherctl(["export", db, copy, "--key-env", "N", "--to-key-env", "D", "--to-compat", "same", "--json"], environment: keys)
            XCTAssertEqual(exported.code, 0, "\(label): \(exported.stderr)")
            XCTAssertEqual(try jsonObject(exported.stdout)["method"] as? String, "page-engine", label)
            let fromCopy = try independent(copy, key: keys["D"]!, pragmas: pragmas, [content])
            XCTAssertEqual(fromCopy.stdout, expected, "\(label): the independent build reads the copy: \(fromCopy.stderr)")

            // A new salt and key by the page engine, in place of the file.
            let salted = try cipherctl(["rekey", copy, "--key-env", "D", "--new-key-env", "K", "--new-salt", "--json"], environment: keys)
            XCTAssertEqual(salted.code, 0, "\(label): \(salted.stderr)")
            XCTAssertEqual(try jsonObject(salted.stdout)["method"] as? String, "page-engine", label)
            let afterSalt = try independent(copy, key: keys["K"]!, pragmas: pragmas, [content])
            XCTAssertEqual(afterSalt.stdout, expected, "\(label): the independent build reads the re-salted file: \(afterSalt.stderr)")
        }
        XCTAssertEqual(try temporaryLeftovers(), [])
    }
}
