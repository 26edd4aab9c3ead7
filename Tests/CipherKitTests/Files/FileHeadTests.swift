@testable import CipherKit
import Foundation
import XCTest

/// `FileHead` reads a file's first 64 KiB once, and again whenever the file changed, even
/// within one tick of the clock that stamps its change time.
final class FileHeadTests: CipherKitTestCase {
    func testEveryRewriteOfTheFirstBytesIsSeenAndAnUnchangedFileIsReadAlike() throws {
        var generator = SystemRandomNumberGenerator()
        let file = path("head.db")
        var bytes = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(FileHead.bytes(of: file), Array(bytes.prefix(FileHead.count)))
        // Rewritten in place, as a page 1 is, many times in a row: same inode and size, and
        // most of the rewrites inside one tick of the change time.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        for round in 0..<200 {
            let offset = Int.random(in: 0..<512, using: &generator)
            bytes[offset] &+= 1
            try handle.seek(toOffset: UInt64(offset))
            handle.write(Data([bytes[offset]]))
            XCTAssertEqual(FileHead.bytes(of: file), Array(bytes.prefix(FileHead.count)), "rewrite \(round) at byte \(offset)")
        }
        XCTAssertEqual(FileHead.bytes(of: file), FileHead.bytes(of: file))
        XCTAssertEqual(FileHead.bytes(of: path("missing.db")), nil)
    }
}
