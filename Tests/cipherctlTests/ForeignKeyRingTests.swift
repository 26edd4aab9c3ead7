import Foundation
import TestSupport
import XCTest

/// Key rings over SQLite3 Multiple Ciphers' files: the entry whose key opens such a file is
/// the file's key wherever it stands in the ring, so `open` names the scheme the key opens and
/// `export` converts the file, and `audit` gives its label; a ring with no such key gets what
/// the header shows.
final class ForeignKeyRingTests: CLITestCase {
    func testTheRingEntryThatOpensAFamilysFileIsItsKeyWhereverItStands() throws {
        try requireMultipleCiphersOracle()
        var (generator, seed) = SeededGenerator.forSweep("foreign key ring", variable: "CIPHERCTL_FOREIGN_RING_SEED")
        // sqleet's own file (legacy ChaCha20) looks random, as RC4's does.
        let schemes = [MultipleCiphersScheme(rows: 9, cipher: "chacha20"), MultipleCiphersScheme(rows: 9, cipher: "aes256cbc"),
                       MultipleCiphersScheme(legacy: 1, rows: 9, cipher: "rc4"), MultipleCiphersScheme(rows: 9, cipher: "sqlcipher"),
                       MultipleCiphersScheme(legacy: 1, rows: 9, cipher: "chacha20")]
        for (index, scheme) in schemes.enumerated() {
            let file = path("mc\(index).db"), copy = path("copy\(index).db"), ring = path("ring\(index)"), stranger = path("stranger\(index)")
            XCTAssertEqual(try multipleCiphers("make", file, scheme).code, 0, scheme.cipher)
            var entries = (0..<Int.random(in: 1...3, using: &generator)).map { "wrong\($0) env:WRONG\($0)" }
            try (entries.joined(separator: "\n") + "\n").write(toFile: stranger, atomically: true, encoding: .utf8)
            let position = Int.random(in: 0...entries.count, using: &generator)
            entries.insert("right env:RIGHT", at: position)
            try (entries.joined(separator: "\n") + "\n").write(toFile: ring, atomically: true, encoding: .utf8)
            var environment = ["RIGHT": scheme.key, "T": "sqlcipher side key"]
            for wrong in 0..<3 { environment["WRONG\(wrong)"] = "not the key \(wrong)" }
            let context = "seed \(seed) \(scheme.cipher), right key at \(position)"
            let before = try fingerprint(file).0

            let opened = try cipherctl(["open", file, "--key-ring", ring], environment: environment)
            XCTAssertEqual(opened.code, 3, "\(context): \(opened.stderr)")
            XCTAssertTrue(opened.stderr.contains("which the key opens"), "\(context): \(opened.stderr)")
            XCTAssertTrue(opened.stderr.contains("key ring entry 'right'"), "\(context): \(opened.stderr)")
            let alone = try cipherctl(["open", file, "--key-env", "RIGHT"], environment: environment)
            XCTAssertEqual(alone.code, 3, "\(context): \(alone.stderr)")
            XCTAssertTrue(alone.stderr.contains("which the key opens"), "\(context): \(alone.stderr)")
            let audited = try cipherctl(["audit", file, "--key-ring", ring, "--json"], environment: environment)
            XCTAssertTrue(audited.stdout.contains("\"key_label\":\"right\""), "\(context): \(audited.stdout)")
            XCTAssertTrue(audited.stdout.contains("which the key opens"), "\(context): \(audited.stdout)")
            // The key alone: no finding; a wrong one: a finding, as for any file it does not open.
            let rightAudit = try cipherctl(["audit", file, "--key-env", "RIGHT"], environment: environment)
            XCTAssertEqual(rightAudit.code, 0, "\(context): \(rightAudit.stdout)\(rightAudit.stderr)")
            let wrongAudit = try cipherctl(["audit", file, "--key-env", "WRONG0", "--json"], environment: environment)
            XCTAssertEqual(wrongAudit.code, 8, "\(context): \(wrongAudit.stdout)")
            XCTAssertTrue(wrongAudit.stdout.contains("\"code\":\"cannot-open\""), "\(context): \(wrongAudit.stdout)")
            let converted = try cipherctl(["export", file, copy, "--key-ring", ring, "--to-key-env", "T", "--json"], environment: environment)
            XCTAssertEqual(converted.code, 0, "\(context): \(converted.stderr)")
            XCTAssertEqual(try jsonObject(converted.stdout)["key_label"] as? String, "right", context)
            XCTAssertEqual(try rowsByShell(copy, key: "sqlcipher side key", table: true), try rowsByMultipleCiphers(file, scheme, context), context)
            let refused = try cipherctl(["open", file, "--key-ring", stranger], environment: environment)
            XCTAssertEqual(refused.code, 3, "\(context): \(refused.stderr)")
            XCTAssertFalse(refused.stderr.contains("which the key opens"), "\(context): \(refused.stderr)")
            XCTAssertEqual(try fingerprint(file).0, before, context)
        }
    }
}
