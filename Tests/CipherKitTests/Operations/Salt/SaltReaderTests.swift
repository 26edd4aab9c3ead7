import CipherKit
import XCTest

final class SaltReaderTests: CipherKitTestCase {
    func testSaltIsReadFromTheFileWithoutAKeyAndConfirmedWithOne() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(x)")
        let fromFile = try SaltReader.read(OpenRequest(path: target, key: nil))
        XCTAssertEqual(fromFile.source, .fileHeader)
        XCTAssertEqual(fromFile.salt, try DatabaseFile.probe(target).firstBytes)
        let confirmed = try SaltReader.read(OpenRequest(path: target, key: try passphrase("k")))
        XCTAssertEqual(confirmed.source, .pragma)
        XCTAssertEqual(confirmed.salt, fromFile.salt)
    }

    func testPlaintextDatabaseHasNoSalt() throws {
        let target = try makePlaintextDatabase("plain.db", sql: "CREATE TABLE t(x)")
        assertThrows(.noSalt(path: target, reason: "it is a plaintext SQLite database, which has no salt")) {
            try SaltReader.read(OpenRequest(path: target, key: nil))
        }
    }

    func testPlaintextHeaderSaltMustComeFromWhereItWasStored() throws {
        let salt: [UInt8] = Array(100..<116)
        let target = try makeEncryptedDatabase("ph.db", key: "k", settings: CipherSettings(plaintextHeaderSize: 32, salt: salt), sql: "CREATE TABLE t(x)")
        XCTAssertThrowsError(try SaltReader.read(OpenRequest(path: target, key: try passphrase("k")))) { error in
            guard case .noSalt(_, let reason)? = error as? CipherKitError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("kept outside the file"), reason)
        }
        let confirmed = try SaltReader.read(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(salt: salt)))
        XCTAssertEqual(confirmed.salt, salt)
        XCTAssertEqual(confirmed.source, .pragma)
    }
}
