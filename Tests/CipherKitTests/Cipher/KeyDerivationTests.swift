import CCipherProvider
import CSQLCipher
import CipherKit
import XCTest

final class KeyDerivationTests: CipherKitTestCase {
    /// The derived raw key must open what SQLCipher wrote with the passphrase, for every KDF.
    func testDerivedRawKeyOpensWhatThePassphraseWrote() throws {
        let cases: [CipherSettings] = [
            CipherSettings(),
            CipherSettings(compatibility: 3),
            CipherSettings(kdfIterations: 12_345, kdfAlgorithm: .pbkdf2SHA256),
        ]
        for (index, settings) in cases.enumerated() {
            let target = try makeEncryptedDatabase("d\(index).db", key: "pass phrase", settings: settings, sql: "CREATE TABLE t(x); INSERT INTO t VALUES (7);")
            let salt = try DatabaseFile.probe(target).firstBytes
            let raw = try KeyDerivation.rawKey(for: try passphrase("pass phrase"), salt: salt, settings: settings)
            XCTAssertEqual(raw.kind, .rawKeyWithSalt)
            XCTAssertEqual(raw.salt, salt)
            let connection = try Connection(path: target, mode: .readOnly)
            try connection.key(raw)
            try connection.apply(settings)
            XCTAssertEqual(try connection.scalar("SELECT x FROM t"), .integer(7), "settings \(index)")
        }
    }

    func testWrongPassphraseDerivesAKeyThatDoesNotOpen() throws {
        let target = try makeEncryptedDatabase("a.db", key: "right", sql: "CREATE TABLE t(x)")
        let raw = try KeyDerivation.rawKey(for: try passphrase("wrong"), salt: try DatabaseFile.probe(target).firstBytes, settings: CipherSettings())
        XCTAssertThrowsError(try DatabaseOpener.open(OpenRequest(path: target, key: raw)))
    }

    func testOpenWithSettingsGivenReturnsTheProvenRawKey() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(x)")
        let opened = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(compatibility: 4)))
        XCTAssertEqual(opened.key?.kind, .rawKeyWithSalt)
        XCTAssertEqual(opened.attempts, 1)
    }

    func testFormatSearchReturnsTheProvenRawKey() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(x)")
        let opened = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k")))
        XCTAssertEqual(opened.key?.kind, .rawKeyWithSalt)
        XCTAssertEqual(opened.format, CipherFormat(version: 4))
    }

    func testRandomSaltsDiffer() {
        XCTAssertNotEqual(KeyDerivation.randomSalt(), KeyDerivation.randomSalt())
        XCTAssertEqual(KeyDerivation.randomSalt().count, 16)
    }

    /// Published vectors: RFC 6070 for HMAC-SHA1, and the same inputs for SHA-256 and SHA-512.
    func testPBKDF2GivesThePublishedVectors() {
        let vectors: [(String, String, Int32, Int32, Int32, String)] = [
            ("password", "salt", 1, 1, 20, "0c60c80f961f0e71f3a9b524af6012062fe037a6"),
            ("password", "salt", 2, 1, 20, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"),
            ("password", "salt", 4096, 1, 20, "4b007901b765489abead49d926f721d065a429c1"),
            ("passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 1, 25,
             "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038"),
            ("password", "salt", 1, 256, 32, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"),
            ("password", "salt", 1, 512, 64,
             "867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce"),
        ]
        for (pass, salt, iterations, digest, length, expected) in vectors {
            XCTAssertEqual(fastPBKDF2(Array(pass.utf8), Array(salt.utf8), iterations, digest, length), expected, "\(pass) \(iterations) \(digest)")
        }
    }

    /// The same bytes as OpenSSL's PKCS5_PBKDF2_HMAC, across the lengths where HMAC changes
    /// course (a passphrase longer than a hash block is hashed first) and outputs of several blocks.
    func testPBKDF2MatchesOpenSSLForEveryDigestPassphraseLengthAndOutputLength() {
        var generator = SystemRandomNumberGenerator()
        for digest: Int32 in [1, 256, 512] {
            for passLength in [0, 1, 15, 63, 64, 65, 127, 128, 129, 300] {
                let pass = (0..<passLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
                for (iterations, length) in [(1, 32), (2, 32), (3, 20), (1000, 32), (257, 100), (5, 160)] as [(Int32, Int32)] {
                    XCTAssertEqual(fastPBKDF2(pass, salt, iterations, digest, length), opensslPBKDF2(pass, salt, iterations, digest, length),
                                   "digest \(digest), passphrase of \(passLength) bytes, \(iterations) iterations, \(length) bytes out")
                }
            }
        }
    }

    func testPBKDF2RefusesABadDigestOrIterationCount() {
        var out = [UInt8](repeating: 0, count: 32)
        XCTAssertEqual(providerPBKDF2(Array("k".utf8), salt: [1, 2], iterations: 1000, digest: 384, into: &out, length: 32), 0)
        XCTAssertEqual(providerPBKDF2(Array("k".utf8), salt: [1, 2], iterations: 0, digest: 512, into: &out, length: 32), 0)
    }

    private func fastPBKDF2(_ pass: [UInt8], _ salt: [UInt8], _ iterations: Int32, _ digest: Int32, _ length: Int32) -> String {
        var out = [UInt8](repeating: 0, count: Int(length))
        XCTAssertEqual(providerPBKDF2(pass, salt: salt, iterations: iterations, digest: digest, into: &out, length: length), 1)
        return out.map { String(format: "%02x", $0) }.joined()
    }

    private func opensslPBKDF2(_ pass: [UInt8], _ salt: [UInt8], _ iterations: Int32, _ digest: Int32, _ length: Int32) -> String {
        var out = [UInt8](repeating: 0, count: Int(length))
        let md = digest == 1 ? EVP_sha1() : digest == 256 ? EVP_sha256() : EVP_sha512()
        let status = pass.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { PKCS5_PBKDF2_HMAC($0.baseAddress, Int32(pass.count), salt, Int32(salt.count), iterations, md, length, &out) }
        }
        XCTAssertEqual(status, 1)
        return out.map { String(format: "%02x", $0) }.joined()
    }
}
