import CipherKit
import Foundation
import XCTest

final class TemporaryDatabaseTests: CipherKitTestCase {
    func testLeftoversOfDeadProcessesAreFoundAndRemoved() throws {
        let target = path("a.db")
        FileManager.default.createFile(atPath: target, contents: Data("db".utf8))
        let dead = path("a.db.cipherctl-tmp-999999999-x")
        let alive = path("a.db.cipherctl-tmp-\(getpid())-y")
        let other = path("b.db.cipherctl-tmp-999999999-z")
        for file in [dead, dead + "-journal", alive, other] {
            FileManager.default.createFile(atPath: file, contents: Data())
        }
        XCTAssertEqual(TemporaryDatabase.leftovers(beside: target), [dead])
        XCTAssertEqual(TemporaryDatabase.removeLeftovers(beside: target), [dead])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dead))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dead + "-journal"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: alive), "a running process's file is left alone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: other))
        XCTAssertTrue(FileManager.default.fileExists(atPath: target))
        XCTAssertTrue(TemporaryDatabase.isTemporary(dead))
        XCTAssertFalse(TemporaryDatabase.isTemporary(target))
    }
}
