import CipherKit
import XCTest

final class PlaintextHeaderMoverTests: CipherKitTestCase {
    private let rows = "CREATE TABLE t(x, y); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) INSERT INTO t SELECT i, randomblob(100) FROM n"

    func testMoveToAPlaintextHeaderAndBackKeepsEveryRow() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: rows)
        let salt = try DatabaseFile.probe(target).firstBytes
        let saltFile = path("a.salt")
        let moved = try PlaintextHeaderMover.move(PlaintextHeaderRequest(
            database: OpenRequest(path: target, key: try passphrase("k")), size: 32, saltOutputPath: saltFile))
        XCTAssertTrue(moved.changed)
        XCTAssertEqual(moved.salt, salt)
        XCTAssertEqual(moved.verification?.isOK, true)
        XCTAssertEqual(try DatabaseFile.probe(target).firstBytes, DatabaseFile.sqliteMagic)
        XCTAssertEqual(try DatabaseFile.probe(target).kind, .plaintextHeader)
        XCTAssertEqual(try String(contentsOfFile: saltFile, encoding: .utf8), Hex.encode(salt) + "\n")
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: saltFile)[.posixPermissions] as? Int).map { $0 & 0o777 }, 0o600)
        let withHeader = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(plaintextHeaderSize: 32, salt: salt)))
        XCTAssertEqual(try withHeader.connection.scalar("SELECT count(*) FROM t"), .integer(500))
        try withHeader.connection.close()

        let back = try PlaintextHeaderMover.move(PlaintextHeaderRequest(
            database: OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(salt: salt)), size: 0))
        XCTAssertTrue(back.changed)
        XCTAssertEqual(back.oldSize, 32)
        XCTAssertEqual(try DatabaseFile.probe(target).firstBytes, salt)
        let plain = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k")))
        XCTAssertEqual(try plain.connection.scalar("SELECT count(*) FROM t"), .integer(500))
        XCTAssertEqual(TemporaryDatabase.leftovers(beside: target), [])
    }

    func testSameSizeChangesNothing() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: rows)
        let before = try fingerprint(target)
        let report = try PlaintextHeaderMover.move(PlaintextHeaderRequest(database: OpenRequest(path: target, key: try passphrase("k")), size: 0))
        XCTAssertFalse(report.changed)
        XCTAssertEqual(try fingerprint(target).0, before.0)
        XCTAssertEqual(try fingerprint(target).1, before.1)
    }

    func testSizeOutOfRangeOrExistingSaltFileLeavesTheFileAlone() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: rows)
        let before = try fingerprint(target)
        XCTAssertThrowsError(try PlaintextHeaderMover.move(PlaintextHeaderRequest(database: OpenRequest(path: target, key: try passphrase("k")), size: 24)))
        XCTAssertThrowsError(try PlaintextHeaderMover.move(PlaintextHeaderRequest(database: OpenRequest(path: target, key: try passphrase("k")), size: 4096 - 80)))
        let saltFile = path("taken.salt")
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: saltFile))
        assertThrows(.fileExists(path: saltFile)) {
            try PlaintextHeaderMover.move(PlaintextHeaderRequest(database: OpenRequest(path: target, key: try passphrase("k")), size: 32, saltOutputPath: saltFile))
        }
        XCTAssertEqual(try String(contentsOfFile: saltFile, encoding: .utf8), "keep me\n")
        XCTAssertEqual(try fingerprint(target).0, before.0)
        XCTAssertEqual(try fingerprint(target).1, before.1)
        XCTAssertEqual(TemporaryDatabase.leftovers(beside: target), [])
    }

    func testPlaintextDatabaseIsRefused() throws {
        let target = try makePlaintextDatabase("plain.db", sql: "CREATE TABLE t(x)")
        XCTAssertThrowsError(try PlaintextHeaderMover.move(PlaintextHeaderRequest(database: OpenRequest(path: target, key: try passphrase("k")), size: 32))) { error in
            guard case .refused? = error as? CipherKitError else { return XCTFail("\(error)") }
        }
    }
}
