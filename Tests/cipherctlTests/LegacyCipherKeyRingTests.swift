import Foundation
import TestSupport
import XCTest

/// Key rings over SQLCipher 1 to 3 files under another `PRAGMA cipher`: the entry whose key
/// opens such a file is the file's key, wherever it stands in the ring, so `open` and `audit`
/// name the cipher and `export` converts the file.
final class LegacyCipherKeyRingTests: CLITestCase {
    func testTheRingEntryThatOpensAnotherCiphersFileIsItsKeyWhereverItStands() throws {
        try requireLegacyCipherOracle()
        var (generator, seed) = SeededGenerator.forSweep("legacy cipher key ring", variable: "CIPHERCTL_LEGACY_RING_SEED")
        for index in 0..<sweepCases("CIPHERCTL_LEGACY_RING_CASES", quick: 2) {
            let cipher = ["aes-128-cbc", "aes-192-cbc", "aes-256-cfb", "aes-128-cfb"].randomElement(using: &generator)!
            let source = LegacyCipherSource(cipher: cipher, version: Int.random(in: 1...3, using: &generator), rows: 12, key: "ring key \(index)")
            let file = path("legacy\(index).db"), copy = path("copy\(index).db"), ring = path("ring\(index)")
            let context = "seed \(seed) case \(index) (\(source))"
            try makeLegacyCipherFile(file, source)
            var entries = (0..<Int.random(in: 1...3, using: &generator)).map { "wrong\($0) env:WRONG\($0)" }
            let position = Int.random(in: 0...entries.count, using: &generator)
            entries.insert("right env:RIGHT", at: position)
            try (entries.joined(separator: "\n") + "\n").write(toFile: ring, atomically: true, encoding: .utf8)
            var environment = ["RIGHT": source.key, "T": "sqlcipher 4 key"]
            for wrong in 0..<3 { environment["WRONG\(wrong)"] = "not the key \(wrong)" }
            let before = try fingerprint(file).0

            for words in [["open", file], ["audit", file]] {
                let result = try cipherctl(words + ["--key-ring", ring], environment: environment)
                // audit lists it among its findings, on standard output.
                XCTAssertTrue((result.stdout + result.stderr).contains("is SQLCipher \(source.version) with PRAGMA cipher \(cipher)"),
                              "\(context) \(words[0]), right key at \(position): \(result.stderr)")
            }
            let converted = try cipherctl(["export", file, copy, "--key-ring", ring, "--to-key-env", "T"], environment: environment)
            XCTAssertEqual(converted.code, 0, "\(context): \(converted.stderr)")
            XCTAssertEqual(try sqlcipherOK(copy, "PRAGMA key = 'sqlcipher 4 key'; SELECT count(*) FROM t;"), "ok\n12\n", context)
            XCTAssertEqual(try fingerprint(file).0, before, context)
        }
    }
}
