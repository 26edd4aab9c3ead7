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

    func testOpenDerivingOnceReturnsTheProvenRawKey() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(x)")
        let opened = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(compatibility: 4)), deriveOnce: true)
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
}
