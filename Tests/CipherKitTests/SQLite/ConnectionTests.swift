import CipherKit
import XCTest

final class ConnectionTests: CipherKitTestCase {
    func testRightKeyReadsAndWrongKeyFailsAtVerification() throws {
        let target = try makeEncryptedDatabase("a.db", key: "right", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let good = try Connection(path: target, mode: .readOnly)
        try good.key(try passphrase("right"))
        XCTAssertNoThrow(try good.verifyReadable())

        let bad = try Connection(path: target, mode: .readOnly)
        try bad.key(try passphrase("wrong"))
        XCTAssertThrowsError(try bad.verifyReadable()) { error in
            XCTAssertTrue((error as? DatabaseError)?.isNotADatabase ?? false, "\(error)")
        }
    }

    func testFileWrittenWithKeyIsNotPlaintext() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE visible_name(x)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: target))
        XCTAssertFalse(bytes.starts(with: Data("SQLite format 3".utf8)))
        XCTAssertNil(bytes.range(of: Data("visible_name".utf8)))
    }

    func testCipherVersionIsAtLeastFour() throws {
        let connection = try Connection(path: ":memory:", mode: .create)
        let version = try XCTUnwrap(connection.pragmaText("cipher_version"))
        XCTAssertGreaterThanOrEqual(Int(version.prefix { $0.isNumber }) ?? 0, 4)
    }

    func testMemorySecurityIsOnBeforeAnyKeyIsGiven() throws {
        let connection = try Connection(path: ":memory:", mode: .create)
        XCTAssertEqual(try connection.pragmaText("cipher_memory_security"), "1")
    }

    /// The version probe opens its connection without memory security (it holds no secret);
    /// the next connection must still turn it on (run alone, this test starts with the probe).
    func testMemorySecurityIsOnForTheConnectionAfterTheVersionProbe() throws {
        _ = try LibraryVersions.current()
        let connection = try Connection(path: ":memory:", mode: .create)
        XCTAssertEqual(try connection.pragmaText("cipher_memory_security"), "1")
    }

    func testOutOfSpaceIsRecognisedFromFullDiskAndFileSizeLimitErrors() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(x)")
        let connection = try Connection(path: target, mode: .readWrite)
        try connection.key(try passphrase("k"))
        try connection.verifyReadable()
        XCTAssertThrowsError(try connection.execute("SELECT nope")) { error in
            XCTAssertFalse((error as? DatabaseError)?.isOutOfSpace ?? true, "a plain SQL error is not a full disk")
        }
    }

    func testPrepareErrorCarriesMessageAndSQL() throws {
        let connection = try Connection(path: ":memory:", mode: .create)
        XCTAssertThrowsError(try connection.prepare("SELEC 1")) { error in
            let error = error as? DatabaseError
            XCTAssertEqual(error?.sql, "SELEC 1")
            XCTAssertTrue(error?.message.contains("syntax error") ?? false)
        }
    }

    func testCloseTwiceIsHarmless() throws {
        let connection = try Connection(path: ":memory:", mode: .create)
        try connection.close()
        XCTAssertNoThrow(try connection.close())
    }

    func testMissingFileIsNotCreatedInReadWriteMode() {
        let target = path("missing.db")
        XCTAssertThrowsError(try Connection(path: target, mode: .readWrite))
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
    }

    func testRekeyChangesTheKeyOnDisk() throws {
        let target = try makeEncryptedDatabase("a.db", key: "old", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (42)")
        let connection = try Connection(path: target, mode: .readWrite)
        try connection.key(try passphrase("old"))
        try connection.verifyReadable()
        try connection.rekey(try passphrase("new"))
        try connection.close()

        let reopened = try Connection(path: target, mode: .readOnly)
        try reopened.key(try passphrase("new"))
        XCTAssertEqual(try reopened.scalar("SELECT x FROM t"), .integer(42))
    }
}
