import CipherKit
import XCTest

final class DatabaseFileTests: CipherKitTestCase {
    func testMissingFileIsReportedAndNotCreated() throws {
        let target = path("none.db")
        XCTAssertEqual(try DatabaseFile.probe(target).kind, .missing)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
    }

    func testDirectoryIsNotARegularFile() throws {
        XCTAssertEqual(try DatabaseFile.probe(directory.path).kind, .notRegularFile)
    }

    func testEmptyAndShortFilesAreRecognised() throws {
        let empty = path("empty.db")
        FileManager.default.createFile(atPath: empty, contents: Data())
        XCTAssertEqual(try DatabaseFile.probe(empty).kind, .empty)
        let short = path("short.db")
        FileManager.default.createFile(atPath: short, contents: Data(repeating: 7, count: 100))
        let probed = try DatabaseFile.probe(short)
        XCTAssertEqual(probed.kind, .tooShort)
        XCTAssertEqual(probed.size, 100)
    }

    func testPlaintextDatabaseIsRecognised() throws {
        let target = try makePlaintextDatabase("plain.db", sql: "CREATE TABLE t(x)")
        XCTAssertEqual(try DatabaseFile.probe(target).kind, .plaintext)
    }

    func testEncryptedDatabaseIsOpaqueAndItsFirstBytesAreTheSalt() throws {
        let salt: [UInt8] = Array(100..<116)
        let target = try makeEncryptedDatabase("enc.db", key: "k", settings: CipherSettings(salt: salt), sql: "CREATE TABLE t(x)")
        let probed = try DatabaseFile.probe(target)
        XCTAssertEqual(probed.kind, .opaque)
        XCTAssertEqual(probed.firstBytes, salt)
    }

    func testPlaintextHeaderDatabaseIsRecognised() throws {
        let settings = CipherSettings(plaintextHeaderSize: 32, salt: Array(0..<16))
        let target = try makeEncryptedDatabase("ph.db", key: "k", settings: settings, sql: "CREATE TABLE t(x)")
        XCTAssertEqual(try DatabaseFile.probe(target).kind, .plaintextHeader)
    }

    func testProbeLeavesBytesAndModificationTimeUnchanged() throws {
        let encrypted = try makeEncryptedDatabase("enc.db", key: "k", sql: "CREATE TABLE t(x)")
        let plain = try makePlaintextDatabase("plain.db", sql: "CREATE TABLE t(x)")
        for target in [encrypted, plain] {
            let before = try fingerprint(target)
            Thread.sleep(forTimeInterval: 0.01)
            _ = try DatabaseFile.probe(target)
            let after = try fingerprint(target)
            XCTAssertEqual(before.0, after.0)
            XCTAssertEqual(before.1, after.1)
        }
    }
}
