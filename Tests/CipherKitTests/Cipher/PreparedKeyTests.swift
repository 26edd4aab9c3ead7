import CCipherProvider
import CipherKit
import TestSupport
import XCTest

/// Keys derived ahead in the SHA-512 lanes (`KeyDerivation.prepare`) are the bytes a
/// derivation one at a time gives, are counted once, and are taken only by the derivation
/// they were made for.
final class PreparedKeyTests: CipherKitTestCase {
    override func tearDownWithError() throws {
        KeyDerivation.forgetPrepared()
        try super.tearDownWithError()
    }

    private func requireLanes() throws {
        guard cipherpage_sha512x8_available() == 1 else { throw XCTSkip("this CPU has no AVX-512: keys are derived one at a time") }
    }

    func testSeededKeysDerivedAheadAreTheBytesOfOneDerivationAndAreNotDerivedAgain() throws {
        try requireLanes()
        var (generator, _) = SeededGenerator.forSweep("keys derived ahead", variable: "CIPHERCTL_PREPARED_SEED")
        for round in 0..<sweepCases("CIPHERCTL_PREPARED_CASES", quick: 3) {
            let count = Int.random(in: 1...19, using: &generator)
            let expected = try (0..<count).map { _ in
                let pass = (0..<Int.random(in: 1...200, using: &generator)).map { _ in UInt8.random(in: 1...255, using: &generator) }
                let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let iterations = [1000, 1001, 2500].randomElement(using: &generator)!
                return (try KeyMaterial.passphrase(pass), salt, CipherSettings(kdfIterations: iterations))
            }
            let before = cipherprovider_key_derivations()
            XCTAssertEqual(KeyDerivation.prepare(expected.map { KeyDerivation.Expected(key: $0.0, salt: $0.1, settings: $0.2) }, threads: 2), count)
            XCTAssertEqual(cipherprovider_key_derivations() - before, UInt(count), "round \(round)")
            let ahead = try expected.map { try KeyDerivation.rawKey(for: $0.0, salt: $0.1, settings: $0.2) }
            XCTAssertEqual(cipherprovider_key_derivations() - before, UInt(count), "taken, not derived again: round \(round)")
            KeyDerivation.forgetPrepared()
            let alone = try expected.map { try KeyDerivation.rawKey(for: $0.0, salt: $0.1, settings: $0.2) }
            XCTAssertEqual(cipherprovider_key_derivations() - before, UInt(2 * count), "round \(round)")
            XCTAssertTrue(zip(ahead, alone).allSatisfy { $0.hasSameSecret(as: $1) }, "round \(round)")
        }
    }

    func testADerivationOtherThanTheOneDerivedAheadIsDerivedAsEver() throws {
        try requireLanes()
        let salt = Array(0..<16).map(UInt8.init)
        XCTAssertEqual(KeyDerivation.prepare([KeyDerivation.Expected(key: try passphrase("k"), salt: salt, settings: CipherSettings())], threads: 1), 1)
        let others: [(KeyMaterial, [UInt8], CipherSettings)] = [
            (try passphrase("K"), salt, CipherSettings()), (try passphrase("k"), salt.reversed(), CipherSettings()),
            (try passphrase("k"), salt, CipherSettings(kdfIterations: 255_999)), (try passphrase("k"), salt, CipherSettings(compatibility: 3)),
        ]
        for (index, other) in others.enumerated() {
            let before = cipherprovider_key_derivations()
            _ = try KeyDerivation.rawKey(for: other.0, salt: other.1, settings: other.2)
            XCTAssertEqual(cipherprovider_key_derivations() - before, 1, "case \(index)")
        }
        // SHA1 and raw keys never go into the lanes.
        XCTAssertEqual(KeyDerivation.prepare([KeyDerivation.Expected(key: try passphrase("k"), salt: salt, settings: CipherSettings(compatibility: 3))], threads: 1), 0)
        let raw = try KeyMaterial.rawKey(hex: Array("x'\(String(repeating: "ab", count: 32))'".utf8))
        XCTAssertEqual(KeyDerivation.prepare([KeyDerivation.Expected(key: raw, salt: salt, settings: CipherSettings())], threads: 1), 0)
    }

    func testAnOpenTakesTheKeyDerivedAheadAndOpensTheDatabase() throws {
        try requireLanes()
        let target = try makeEncryptedDatabase("a.db", key: "ahead", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (5)")
        let salt = Array(try DatabaseFile.probe(target).firstBytes.prefix(16))
        KeyDerivation.prepare([KeyDerivation.Expected(key: try passphrase("ahead"), salt: salt, settings: CipherSettings())], threads: 1)
        let before = cipherprovider_key_derivations()
        let opened = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("ahead")))
        XCTAssertEqual(try opened.connection.scalar("SELECT x FROM t"), .integer(5))
        try opened.connection.close()
        XCTAssertEqual(cipherprovider_key_derivations() - before, 0)
    }
}
