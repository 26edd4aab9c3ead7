import Foundation
import XCTest

/// `keygen --derive DB`: the raw key and salt that open a database without its KDF, proved
/// by the sqlcipher shell keyed with nothing but that key (and the settings that are not
/// the KDF's), and written only to a new 0600 file or a descriptor.
final class KeygenDeriveTests: CLITestCase {
    private let key = "derive test key"
    private let salt = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"

    /// A database as the shell writes it, and the settings a raw key still needs: all but the
    /// KDF's count, since a raw key skips the key's derivation (its algorithm still derives
    /// the HMAC key).
    private struct Format {
        let name: String
        let shellSQL: String
        let rawKeySQL: String
        let options: [String]
    }

    private var formats: [Format] {
        [
            Format(name: "SQLCipher 4", shellSQL: "", rawKeySQL: "", options: []),
            Format(name: "SQLCipher 3", shellSQL: "PRAGMA cipher_compatibility = 3;", rawKeySQL: "PRAGMA cipher_compatibility = 3;", options: []),
            Format(name: "SQLCipher 1", shellSQL: "PRAGMA cipher_compatibility = 1;", rawKeySQL: "PRAGMA cipher_compatibility = 1;", options: []),
            Format(name: "10,000 SHA256 counts, found by search", shellSQL: "PRAGMA kdf_iter = 10000; PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA256;",
                   rawKeySQL: "PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA256;", options: []),
            Format(name: "plaintext header", shellSQL: "PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(salt)'\";",
                   rawKeySQL: "PRAGMA cipher_plaintext_header_size = 32;", options: ["--salt", salt]),
            Format(name: "plaintext header of 16 bytes", shellSQL: "PRAGMA cipher_plaintext_header_size = 16; PRAGMA cipher_salt = \"x'\(salt)'\";",
                   rawKeySQL: "PRAGMA cipher_plaintext_header_size = 16;", options: ["--salt", salt, "--plaintext-header-size", "16"]),
        ]
    }

    func testDerivedKeyOpensEveryFormatInTheShellWithoutItsKDF() throws {
        for (index, format) in formats.enumerated() {
            let database = try makeShellDatabase("d\(index).db", key: key, rows: 40, extraSQL: format.shellSQL)
            let expected = try XCTUnwrap(contentChecksum(database, keySQL: "PRAGMA key = '\(key)';\n" + format.shellSQL), format.name)
            let before = try fingerprint(database).0
            let keyFile = path("d\(index).raw")
            let derived = try cipherctl(["keygen", "--derive", database, "--key-env", "K", "--output", keyFile, "--json"] + format.options, environment: ["K": key])
            XCTAssertEqual(derived.code, 0, "\(format.name): \(derived.stderr)")
            let line = try String(contentsOfFile: keyFile, encoding: .utf8)
            XCTAssertTrue(line.count == 97 && line.hasSuffix("\n") && line.dropLast().allSatisfy(\.isHexDigit), "\(format.name): \(line.count) bytes")
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int, 0o600)
            XCTAssertFalse(derived.stdout.contains(line.dropLast()), "\(format.name): the key was printed")
            let rawKeySQL = "PRAGMA key = \"x'\(line.dropLast())'\";\n" + format.rawKeySQL
            XCTAssertEqual(try contentChecksum(database, keySQL: rawKeySQL), expected, "\(format.name): the shell, keyed with the raw key only")
            let pins = try XCTUnwrap(jsonObject(derived.stdout)["options"] as? [String], format.name)
            let opened = try cipherctl(["open", database, "--key-file", keyFile, "--raw-key"] + pins)
            XCTAssertEqual(opened.code, 0, "\(format.name) opened with the options the report names: \(opened.stderr)")
            XCTAssertEqual(try fingerprint(database).0, before, "\(format.name): deriving changed the database")
        }
    }

    func testDerivedKeyGoesOnlyToANewFileOrADescriptorNeverToATerminalOrStandardOutput() throws {
        let database = try makeShellDatabase("only.db", key: key, rows: 5)
        let nowhere = try cipherctl(["keygen", "--derive", database, "--key-env", "K"], environment: ["K": key])
        XCTAssertEqual(nowhere.code, 2, nowhere.stderr)
        XCTAssertEqual(nowhere.stdout, "")
        let existing = try writeFile("taken.raw", "already here\n")
        let taken = try cipherctl(["keygen", "--derive", database, "--key-env", "K", "--output", existing], environment: ["K": key])
        XCTAssertEqual(taken.code, 5, taken.stderr)
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "already here\n")
        let (code, screen) = try cipherctlOnTerminal(["keygen", "--derive", database, "--key-env", "K", "--output-fd", "1"], answers: [], environment: ["K": key])
        XCTAssertEqual(code, 2, screen)
        XCTAssertTrue(screen.contains("terminal"), screen)
        let piped = try sh("K='\(key)' \"$CIPHERCTL\" keygen --derive '\(database)' --key-env K --output-fd 3 3>'\(path("fd.raw"))'")
        XCTAssertEqual(piped.code, 0, piped.stderr)
        XCTAssertEqual(try String(contentsOfFile: path("fd.raw"), encoding: .utf8).count, 97)
        let onStandardOutput = try cipherctl(["keygen", "--derive", database, "--key-env", "K", "--output-fd", "1"], environment: ["K": key])
        XCTAssertEqual(onStandardOutput.code, 0, onStandardOutput.stderr)
        XCTAssertEqual(onStandardOutput.stdout, try String(contentsOfFile: path("fd.raw"), encoding: .utf8), "the key alone, the same key")
    }

    func testWrongKeyOrPlaintextDatabaseWritesNothing() throws {
        let database = try makeShellDatabase("wrong.db", key: key, rows: 5)
        let wrong = try cipherctl(["keygen", "--derive", database, "--key-env", "K", "--output", path("wrong.raw")], environment: ["K": "not it"])
        XCTAssertEqual(wrong.code, 3, wrong.stderr)
        let plain = path("plain.db")
        try sqlcipherOK(plain, "CREATE TABLE t(x);")
        let plaintext = try cipherctl(["keygen", "--derive", plain, "--output", path("plain.raw")])
        XCTAssertEqual(plaintext.code, 1, plaintext.stderr)
        XCTAssertTrue(plaintext.stderr.contains("plaintext"), plaintext.stderr)
        for name in ["wrong.raw", "plain.raw"] { XCTAssertFalse(FileManager.default.fileExists(atPath: path(name)), name) }
    }

    func testKeyAndCipherOptionsWithoutDeriveAreRefused() throws {
        let refused = try cipherctl(["keygen", "--key-env", "K", "--output", path("r.key")], environment: ["K": key])
        XCTAssertEqual(refused.code, 2, refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("r.key")))
    }

    /// `keygen --derive` and `open` describe a file's settings alike in JSON, `compatibility`
    /// included: N only for exactly SQLCipher N's defaults, null under a mask or another
    /// fast_kdf_iter on top of them.
    func testDeriveAndOpenReportTheSameCipherSettings() throws {
        let variants: [(sql: String, options: [String])] = [
            ("", []), ("PRAGMA cipher_compatibility = 3;", []), ("PRAGMA cipher_hmac_salt_mask = \"x'5b'\";", []),
            ("PRAGMA cipher_compatibility = 3; PRAGMA cipher_hmac_salt_mask = \"x'01'\";", []),
            // Not searched for: named.
            ("PRAGMA fast_kdf_iter = 10;", ["--fast-kdf-iter", "10"]),
        ]
        for (index, (sql, options)) in variants.enumerated() {
            let database = try makeShellDatabase("s\(index).db", key: key, rows: 5, extraSQL: sql)
            let opened = try cipherctl(["open", database, "--key-env", "K", "--json"] + options, environment: ["K": key])
            let derived = try cipherctl(["keygen", "--derive", database, "--key-env", "K", "--output", path("s\(index).raw"), "--json"] + options,
                                        environment: ["K": key])
            XCTAssertEqual(opened.code, 0, "\(sql): \(opened.stderr)")
            XCTAssertEqual(derived.code, 0, "\(sql): \(derived.stderr)")
            var fromOpen = try XCTUnwrap(jsonObject(opened.stdout)["cipher"] as? [String: Any], sql)
            var fromDerive = try XCTUnwrap(jsonObject(derived.stdout)["cipher"] as? [String: Any], sql)
            // The salt is in the file: open shows it, the derived key carries it.
            for field in ["salt", "plaintext_header_size"] { fromOpen[field] = nil; fromDerive[field] = nil }
            XCTAssertEqual(NSDictionary(dictionary: fromOpen), NSDictionary(dictionary: fromDerive), sql)
            XCTAssertEqual(fromOpen["compatibility"] as? Int, sql.contains("mask") || sql.contains("fast") ? nil : sql.isEmpty ? 4 : 3, sql)
        }
    }
}
