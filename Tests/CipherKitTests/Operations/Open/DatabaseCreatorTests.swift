import CipherKit
import XCTest

final class DatabaseCreatorTests: CipherKitTestCase {
    func testCreatedDatabaseHasOwnerOnlyModeAndOpensWithItsKey() throws {
        let target = path("new.db")
        let settings = CipherSettings(pageSize: 8192, kdfIterations: 5000)
        try DatabaseCreator.create(OpenRequest(path: target, key: try passphrase("k"), settings: settings))
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k"), settings: settings))
        XCTAssertEqual(profile.cipher?.pageSize, 8192)
        XCTAssertEqual(profile.fileSize, 8192)
    }

    func testExistingFileIsRefusedAndKept() throws {
        let target = path("exists.db")
        FileManager.default.createFile(atPath: target, contents: Data("mine".utf8))
        assertThrows(.fileExists(path: target)) {
            try DatabaseCreator.create(OpenRequest(path: target, key: try passphrase("k")))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: target)), Data("mine".utf8))
    }

    func testSymlinkIsNotFollowed() throws {
        let victim = path("victim")
        FileManager.default.createFile(atPath: victim, contents: Data("keep".utf8))
        let link = path("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        XCTAssertThrowsError(try DatabaseCreator.create(OpenRequest(path: link, key: try passphrase("k"))))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: victim)), Data("keep".utf8))
    }

    func testInvalidSettingsLeaveNoFile() throws {
        let target = path("bad.db")
        XCTAssertThrowsError(try DatabaseCreator.create(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(pageSize: 1000))))
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
    }
}
