import Foundation
import XCTest

/// Every format and HMAC setting `open` recognises, rekeyed and exported in its own format and
/// to SQLCipher 4: each result must exit 0 and open in the `sqlcipher` shell with the expected
/// settings and the same rows. Verification must prove its points by means each format has
/// (no page HMACs in SQLCipher 1 or with HMAC off).
final class FormatSweepTests: CLITestCase {
    private let keys = ["K": "format sweep key", "K2": "format sweep new key"]

    /// A format: how the shell writes it, what cipherctl needs to be told of it (nothing for the
    /// formats it finds by itself), and the options that write it again in an export.
    private struct Format {
        let name: String
        let shellSQL: String
        let options: [String]
        let exportOptions: [String]?
    }

    private let formats = [
        Format(name: "SQLCipher 4", shellSQL: "", options: [], exportOptions: []),
        Format(name: "SQLCipher 3", shellSQL: "PRAGMA cipher_compatibility = 3;", options: [], exportOptions: ["--to-compat", "3"]),
        Format(name: "SQLCipher 2", shellSQL: "PRAGMA cipher_compatibility = 2;", options: [], exportOptions: ["--to-compat", "2"]),
        Format(name: "SQLCipher 2 big-endian", shellSQL: "PRAGMA cipher_compatibility = 2; PRAGMA cipher_hmac_pgno = be;", options: [], exportOptions: nil),
        Format(name: "SQLCipher 1", shellSQL: "PRAGMA cipher_compatibility = 1;", options: [], exportOptions: ["--to-compat", "1"]),
        Format(name: "HMAC off", shellSQL: "PRAGMA cipher_use_hmac = OFF;", options: ["--hmac", "off"], exportOptions: nil),
        Format(name: "HMAC-SHA256", shellSQL: "PRAGMA cipher_hmac_algorithm = HMAC_SHA256;", options: ["--hmac-algorithm", "SHA256"],
               exportOptions: ["--to-hmac-algorithm", "SHA256"]),
    ] + [16, 32, 48].map(plaintextHeader)

    /// SQLCipher 4 with a plaintext header of `size` bytes and its salt kept outside the file.
    /// (A 16-byte header keeps SQLite's magic alone: the engine wrote the salt there.)
    private static func plaintextHeader(_ size: Int) -> Format {
        let salt = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
        return Format(
            name: "plaintext header \(size)", shellSQL: "PRAGMA cipher_plaintext_header_size = \(size); PRAGMA cipher_salt = \"x'\(salt)'\";",
            options: ["--plaintext-header-size", "\(size)", "--salt", salt], exportOptions: ["--to-plaintext-header-size", "\(size)", "--to-salt=" + salt])
    }

    func testEveryFormatRekeysAndExportsInItsOwnFormatAndToSQLCipher4() throws {
        for format in formats {
            let label = format.name
            let source = try makeShellDatabase("src-\(format.name.filter { $0.isLetter || $0.isNumber }).db", key: keys["K"]!, rows: 150, extraSQL: format.shellSQL)
            let newKeySQL = "PRAGMA key = '\(keys["K2"]!)';\n" + format.shellSQL
            let expected = try XCTUnwrap(contentChecksum(source, keySQL: "PRAGMA key = '\(keys["K"]!)';\n" + format.shellSQL), label)

            if let exportOptions = format.exportOptions {
                let same = path("same-\(format.name.filter { $0.isLetter || $0.isNumber }).db")
                let exported = try cipherctl(["export", source, same, "--key-env", "K", "--to-key-env", "K2"] + format.options + exportOptions, environment: keys)
                XCTAssertEqual(exported.code, 0, "\(label) export to its own format: \(exported.stderr)")
                XCTAssertEqual(try contentChecksum(same, keySQL: newKeySQL), expected, "\(label): the shell reads the copy in its own format")
            }

            let v4 = path("v4-\(format.name.filter { $0.isLetter || $0.isNumber }).db")
            let migrated = try cipherctl(["export", source, v4, "--key-env", "K", "--to-key-env", "K2"] + format.options, environment: keys)
            XCTAssertEqual(migrated.code, 0, "\(label) export to SQLCipher 4: \(migrated.stderr)")
            XCTAssertEqual(try contentChecksum(v4, keySQL: "PRAGMA key = '\(keys["K2"]!)';"), expected, "\(label): the shell reads the SQLCipher 4 copy")

            let rekeyed = try cipherctl(["rekey", source, "--key-env", "K", "--new-key-env", "K2"] + format.options, environment: keys)
            XCTAssertEqual(rekeyed.code, 0, "\(label) rekey: \(rekeyed.stderr)")
            XCTAssertEqual(try contentChecksum(source, keySQL: newKeySQL), expected, "\(label): the shell reads the rekeyed file in its format")

            // The same command again: already done, exit 0, nothing rewritten.
            let again = try cipherctl(["rekey", source, "--key-env", "K", "--new-key-env", "K2", "--json"] + format.options, environment: keys)
            XCTAssertEqual(again.code, 0, "\(label) rekey again: \(again.stderr)")
            XCTAssertTrue(again.stdout.contains("\"action\":\"already-done\""), "\(label): \(again.stdout)")
        }
    }

    func testMigratingWithTheSameKeyToTheFormatItHasIsAlreadyDone() throws {
        let db = try makeShellDatabase("v4.db", key: keys["K"]!, rows: 20)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let result = try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "K", "--new-compat", "4", "--json"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("\"action\":\"already-done\""), result.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "nothing rewritten")
    }
}
