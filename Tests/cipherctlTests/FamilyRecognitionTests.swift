@testable import CipherKit
import Foundation
import TestSupport
import XCTest

/// Without a key, `audit`, `open` and `plaintext-header` name the family of an encrypted file
/// or say they cannot tell: files written by SQLite3 Multiple Ciphers itself (the pinned
/// apsw-sqlite3mc wheel in .build-interop) in each of its schemes, against SQLCipher's own.
final class FamilyRecognitionTests: CLITestCase {
    private let python = CLITestCase.packageRoot.appendingPathComponent(".build-interop/bin/python").path

    /// A database written by SQLite3 Multiple Ciphers with `cipher` (and `legacy`, when given).
    private func sqlite3mcDatabase(_ name: String, cipher: String, legacy: Int?) throws -> String {
        let database = path(name)
        let program = """
            import sys, apsw
            connection = apsw.Connection(sys.argv[1])
            for statement in ["PRAGMA cipher = '\(cipher)'"] + (["PRAGMA legacy = \(legacy ?? 0)"] if \(legacy == nil ? "False" : "True") else []) + [
                    "PRAGMA key = 'family key'", "CREATE TABLE t(x)", "INSERT INTO t VALUES (1)"]:
                list(connection.execute(statement))
            connection.close()
            """
        let made = try run(python, ["-c", program, database], stdin: nil, environment: [:])
        XCTAssertEqual(made.code, 0, "\(cipher): \(made.stderr)")
        return database
    }

    func testEverySchemeOfSQLite3MultipleCiphersIsNamedOrCalledRandomWithoutAKey() throws {
        try requireTestTool(FileManager.default.isExecutableFile(atPath: python), "run Scripts/bootstrap --test-tools (apsw-sqlite3mc)")
        // Each scheme, and the family its bytes show.
        let schemes: [(String, Int?, String, String?)] = [
            ("chacha20", nil, "sqlite3mc", "ChaCha20"), ("ascon128", nil, "sqlite3mc", "Ascon-128"),
            ("aes256cbc", nil, "sqlite3mc", "AES-128 or AES-256"), ("aes128cbc", nil, "sqlite3mc", "AES-128 or AES-256"),
            ("sqlcipher", nil, "sqlite3mc", "SQLCipher scheme"), ("sqlcipher", 4, "random", nil), ("rc4", nil, "random", nil),
        ]
        for (index, (cipher, legacy, family, scheme)) in schemes.enumerated() {
            let database = try sqlite3mcDatabase("mc\(index).db", cipher: cipher, legacy: legacy)
            let before = try fingerprint(database).0
            let audit = try cipherctl(["audit", database, "--json"])
            let object = try jsonObject(String(audit.stdout.split(separator: "\n").first ?? ""))
            XCTAssertEqual(object["family"] as? String, family, "\(cipher) \(legacy.map(String.init) ?? "")")
            XCTAssertEqual(object["kind"] as? String, family == "random" ? "encrypted" : "sqlite3mc", cipher)
            let opened = try cipherctl(["open", database])
            if let scheme {
                XCTAssertEqual(opened.code, 3, "\(cipher): \(opened.stderr)")
                XCTAssertTrue(opened.stderr.contains("SQLite3 Multiple Ciphers") && opened.stderr.contains(scheme), "\(cipher): \(opened.stderr)")
                let keyed = try cipherctl(["open", database, "--key-env", "K", "--json"], environment: ["K": "family key"])
                XCTAssertEqual(keyed.code, 3, "\(cipher) with its key: \(keyed.stderr)")
                XCTAssertTrue(keyed.stdout.isEmpty && keyed.stderr.contains("\"reason\":\"other-family\""), keyed.stderr)
            } else {
                XCTAssertEqual(opened.code, 2, "\(cipher) legacy: \(opened.stderr)")
                XCTAssertTrue(opened.stderr.contains("look random"), opened.stderr)
            }
            XCTAssertEqual(try fingerprint(database).0, before, "\(cipher): a look changed the file")
        }
        let own = try makeShellDatabase("own.db", key: "family key", rows: 3)
        let keyed = try jsonObject(String(try cipherctl(["audit", own, "--key-env", "K", "--json"], environment: ["K": "family key"]).stdout.split(separator: "\n").first ?? ""))
        XCTAssertEqual(keyed["family"] as? String, "sqlcipher", "a key that opens a random-looking file shows it is SQLCipher's")
        XCTAssertEqual(keyed["kind"] as? String, "sqlcipher", "a key that opens a random-looking file shows it is SQLCipher's")
    }

    /// Random headers are never taken for SQLite3 Multiple Ciphers' plain bytes 16 to 23.
    func testRandomBytesAreNotTakenForPlainHeaderFields() {
        var (generator, seed) = SeededGenerator.forSweep("plain header fields", variable: "CIPHERCTL_FAMILY_SEED")
        for _ in 0..<sweepCases("CIPHERCTL_FAMILY_CASES", quick: 200_000) {
            let header = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertFalse(DatabaseFile.showsPlainHeaderFields(header), "seed \(seed): \(header)")
        }
        var plain = [UInt8](repeating: 0xA5, count: 16) + [0x10, 0x00, 1, 1, 32, 64, 32, 32]
        XCTAssertTrue(DatabaseFile.showsPlainHeaderFields(plain))
        plain[17] = 0x01
        XCTAssertFalse(DatabaseFile.showsPlainHeaderFields(plain), "4097 is no page size")
    }
}
