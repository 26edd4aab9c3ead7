import CipherKit
import XCTest

/// The format search: every SQLCipher format opens without settings, in the documented
/// order, without writing; given settings skip it.
final class DatabaseOpenerTests: CipherKitTestCase {
    func testEveryFormatIsFoundWithoutSettingsInSearchOrder() throws {
        for (index, format) in CipherFormat.searchOrder.enumerated() {
            let target = try makeEncryptedDatabase("f\(index).db", key: "k", settings: format.settings, sql: "CREATE TABLE t(x); INSERT INTO t VALUES (\(index))")
            let opened = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k")))
            XCTAssertEqual(opened.format, format, format.name)
            XCTAssertEqual(opened.attempts, index + 1, format.name)
            XCTAssertEqual(opened.settings.compatibility, format.version)
            XCTAssertEqual(try opened.connection.scalar("SELECT x FROM t"), .integer(Int64(index)), format.name)
        }
    }

    func testSearchWritesNothingWhetherItSucceedsOrFails() throws {
        let target = try makeEncryptedDatabase("v2.db", key: "k", settings: CipherFormat(version: 2, hmacPageNumber: .bigEndian).settings, sql: "CREATE TABLE t(x)")
        let before = try fingerprint(target)
        _ = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), mode: .readWrite))
        XCTAssertThrowsError(try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("wrong"), mode: .readWrite)))
        let after = try fingerprint(target)
        XCTAssertEqual(before.0, after.0)
        XCTAssertEqual(before.1, after.1)
    }

    func testWrongKeysWithoutHMACNeverCreateWALFilesBesideTheDatabase() throws {
        // Without page HMACs a wrong key decrypts page 1 to noise, which says "WAL" one time
        // in 256; 2000 wrong keys would hit that about 8 times.
        let target = try makeEncryptedDatabase("v1.db", key: "k", settings: CipherSettings(compatibility: 1), sql: "CREATE TABLE t(x)")
        for index in 0..<2000 {
            let hex = String(format: "%064x", index * 7919 + 1)
            let wrong = try KeyMaterial.rawKey(hex: Array(hex.utf8))
            XCTAssertThrowsError(try DatabaseOpener.open(OpenRequest(path: target, key: wrong, settings: CipherSettings(compatibility: 1))))
            let beside = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            guard beside == ["v1.db"] else {
                XCTFail("wrong key \(index) left \(beside)")
                return
            }
        }
    }

    func testGivenSettingsSkipTheSearch() throws {
        let target = try makeEncryptedDatabase("v3.db", key: "k", settings: CipherSettings(compatibility: 3), sql: "CREATE TABLE t(x)")
        let opened = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(compatibility: 3)))
        XCTAssertNil(opened.format)
        XCTAssertEqual(opened.attempts, 1)
        assertThrows(.cannotDecrypt(path: target, failure: .wrongKeyOrSettings)) {
            try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(kdfIterations: 64_000)))
        }
    }

    func testCustomSettingsAreFoundBySearchingAndWrongKeysNameTheSearch() throws {
        let custom = CipherSettings(pageSize: 8192, kdfIterations: 1000)
        let target = try makeEncryptedDatabase("custom.db", key: "k", settings: custom, sql: "CREATE TABLE t(x)")
        let found = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k")))
        XCTAssertNotNil(found.searchSeconds)
        XCTAssertEqual(found.settings.pageSize, 8192)
        XCTAssertEqual(found.settings.kdfIterations, 1000)
        XCTAssertEqual(found.key?.kind, .rawKeyWithSalt, "a reopen derives nothing")
        var known = OpenRequest(path: target, key: try passphrase("k"))
        known.searchesSettings = false
        assertThrows(.cannotDecrypt(path: target, failure: .noFormatMatched)) { try DatabaseOpener.open(known) }
        assertThrows(.cannotDecrypt(path: target, failure: .noFormatMatched)) {
            try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("not k")))
        }
        XCTAssertNoThrow(try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), settings: custom)))
    }

    func testARawKeyFindsCustomSettingsToo() throws {
        let raw = try KeyMaterial.rawKey(hex: Array("x'\(String(repeating: "cd", count: 32))'".utf8))
        let target = path("raw-custom.db")
        let connection = try Connection(path: target, mode: .create)
        try connection.key(raw)
        try connection.apply(CipherSettings(pageSize: 2048, hmacAlgorithm: .sha256, kdfAlgorithm: .pbkdf2SHA256))
        try connection.execute("CREATE TABLE t(x)")
        try connection.close()
        let opened = try DatabaseOpener.open(OpenRequest(path: target, key: raw))
        XCTAssertNotNil(opened.searchSeconds)
        XCTAssertEqual(opened.settings.pageSize, 2048)
        XCTAssertEqual(opened.settings.hmacAlgorithm, .sha256)
    }

    func testRawKeyIsTriedInEveryFormat() throws {
        let raw = try KeyMaterial.rawKey(hex: Array("x'\(String(repeating: "ab", count: 32))'".utf8))
        let target = path("raw3.db")
        let connection = try Connection(path: target, mode: .create)
        try connection.key(raw)
        try connection.apply(CipherSettings(compatibility: 3))
        try connection.execute("CREATE TABLE t(x)")
        try connection.close()
        let opened = try DatabaseOpener.open(OpenRequest(path: target, key: raw))
        XCTAssertEqual(opened.format, CipherFormat(version: 3))
    }

    func testWrongSaltOnAPlaintextHeaderNamesTheSalt() throws {
        let salt: [UInt8] = Array(0..<16)
        let target = try makeEncryptedDatabase("ph.db", key: "k", settings: CipherSettings(plaintextHeaderSize: 32, salt: salt), sql: "CREATE TABLE t(x)")
        assertThrows(.cannotDecrypt(path: target, failure: .wrongKeySettingsOrSalt)) {
            try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(salt: Array(repeating: 9, count: 16))))
        }
        let opened = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(salt: salt)))
        XCTAssertEqual(opened.settings.plaintextHeaderSize, 32)
        XCTAssertEqual(opened.format, CipherFormat(version: 4))
    }
}
