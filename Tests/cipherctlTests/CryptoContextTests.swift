import Foundation
import XCTest

/// With SQLCipher 4.6 and OpenSSL, cipherctl encrypts pages through OpenSSL contexts it keeps
/// between pages (Sources/CCipherProvider). The pages must be exactly what the
/// shell, with SQLCipher's own provider, reads and writes, for every HMAC and key change.
final class CryptoContextTests: CLITestCase {
    private let keys = ["A": "first key a", "B": "second key b"]

    func testVersionSaysContextsAreKeptWithSQLCipher46() throws {
        let result = try cipherctl(["--version", "--json"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let object = try jsonObject(result.stdout)
        let version = try XCTUnwrap(object["sqlcipher"] as? String)
        try XCTSkipUnless(version.hasPrefix("4.6."), "the kept contexts are installed with SQLCipher 4.6 only (found \(version))")
        XCTAssertEqual(object["crypto_contexts"] as? String, "kept")
        XCTAssertTrue(try cipherctl(["--version"]).stdout.contains("contexts kept between pages"))
    }

    func testRekeysThroughKeptContextsOpenInTheShellForEveryHMACAndBack() throws {
        for (algorithm, pragma) in [("SHA1", "HMAC_SHA1"), ("SHA256", "HMAC_SHA256"), ("SHA512", "HMAC_SHA512")] {
            let settings = "PRAGMA cipher_hmac_algorithm = \(pragma);"
            let db = try makeShellDatabase("\(algorithm).db", key: "first key a", rows: 3000, extraSQL: settings)
            let before = try XCTUnwrap(contentChecksum(db, keySQL: "PRAGMA key = 'first key a'; " + settings))

            let forward = try cipherctl(
                ["rekey", db, "--key-env", "A", "--new-key-env", "B", "--hmac-algorithm", algorithm], environment: keys)
            XCTAssertEqual(forward.code, 0, "\(algorithm): \(forward.stderr)")
            let newSQL = "PRAGMA key = 'second key b'; " + settings
            XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before, algorithm)
            XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA cipher_integrity_check; PRAGMA integrity_check;"), "ok\nok\n", algorithm)

            // The shell writes with the new key; cipherctl reads those pages and rekeys back.
            try sqlcipherOK(db, newSQL + "INSERT INTO items(name, price, payload) VALUES ('shell', 1.5, randomblob(900));")
            let back = try cipherctl(
                ["rekey", db, "--key-env", "B", "--new-key-env", "A", "--hmac-algorithm", algorithm], environment: keys)
            XCTAssertEqual(back.code, 0, "\(algorithm): \(back.stderr)")
            let count = try sqlcipherOK(db, "PRAGMA key = 'first key a'; " + settings + "SELECT count(*) FROM items WHERE name = 'shell';")
            XCTAssertEqual(count, "ok\n1\n", algorithm)
        }
    }

    func testExportThroughKeptContextsIsReadByTheShellAndDecryptsToTheSameRows() throws {
        let db = try makeShellDatabase("source.db", key: "first key a", rows: 2000)
        let before = try XCTUnwrap(contentChecksum(db, keySQL: "PRAGMA key = 'first key a';"))
        let copy = path("copy.db"), plain = path("plain.db")
        XCTAssertEqual(try cipherctl(["export", db, copy, "--key-env", "A", "--to-key-env", "B"], environment: keys).code, 0)
        XCTAssertEqual(try contentChecksum(copy, keySQL: "PRAGMA key = 'second key b';"), before)
        XCTAssertEqual(try cipherctl(["export", copy, plain, "--key-env", "B", "--plaintext"], environment: keys).code, 0)
        XCTAssertEqual(try contentChecksum(plain, keySQL: ""), before)
    }
}
