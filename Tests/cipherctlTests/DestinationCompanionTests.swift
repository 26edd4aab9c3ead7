import Foundation
import XCTest

/// A -wal or -journal beside a copy's destination (a stray one, the old database's, or a
/// live writer's) would be read into the new file renamed there, which then will not open
/// or opens as something else. Every command that writes a new database refuses it, with
/// `--force` or without, and leaves the destination, its companion and the source as they
/// were.
final class DestinationCompanionTests: CLITestCase {
    private let keys = ["K": "companion key", "N": "companion new key"]

    func testEveryCopyRefusesADestinationWithALogBesideItAndChangesNothing() throws {
        let source = try makeShellDatabase("src.db", key: keys["K"]!, rows: 30)
        let commands: [(name: String, arguments: [String], existing: Bool)] = [
            ("export", ["export", source, path("d.db"), "--key-env", "K", "--to-key-env", "N"], false),
            ("export --force", ["export", source, path("d.db"), "--key-env", "K", "--to-key-env", "N", "--force"], true),
            ("export --plaintext --force", ["export", source, path("d.db"), "--key-env", "K", "--plaintext", "--force"], true),
            ("export --to-family chacha20", ["export", source, path("d.db"), "--key-env", "K", "--to-key-env", "N", "--to-family", "chacha20"], false),
            ("recover", ["recover", source, path("d.db"), "--key-env", "K", "--to-key-env", "N"], false),
        ]
        for command in commands {
            for suffix in ["-wal", "-journal"] {
                let context = "\(command.name) beside \(suffix)"
                if command.existing { _ = try makeShellDatabase("d.db", key: "old destination", rows: 3) }
                try Data("a log of another database".utf8).write(to: URL(fileURLWithPath: path("d.db") + suffix))
                let before = try folderListing(directory.path)
                let result = try cipherctl(command.arguments + ["--json"], environment: keys)
                XCTAssertEqual(result.code, 5, "\(context): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("\"reason\":\"destination-companion\""), "\(context): \(result.stderr)")
                XCTAssertEqual(try folderListing(directory.path), before, "\(context) changed a file")
                try? FileManager.default.removeItem(atPath: path("d.db"))
                try FileManager.default.removeItem(atPath: path("d.db") + suffix)
            }
        }
        // An empty log holds nothing to read: the copy goes ahead.
        FileManager.default.createFile(atPath: path("d.db-wal"), contents: Data())
        let written = try cipherctl(["export", source, path("d.db"), "--key-env", "K", "--to-key-env", "N"], environment: keys)
        XCTAssertEqual(written.code, 0, written.stderr)
        XCTAssertEqual(try sqlcipherOK(path("d.db"), "PRAGMA key = '\(keys["N"]!)'; SELECT count(*) FROM items;"), "ok\n30\n")
    }
}
