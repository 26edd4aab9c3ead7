import Foundation
import XCTest

/// Another process's idle connection to a WAL database keeps its journal mode from changing,
/// so every command that would leave WAL (to rewrite the file) ends busy, exit 6. It must end
/// so before it changes anything: no checkpoint of the other process's -wal into the file,
/// no mark or temporary file left, every byte as it was.
final class BusyRefusalTests: CLITestCase {
    private let keys = ["K": "busy key", "N": "busy new key"]

    func testEveryRewriteOfAWALDatabaseAnotherProcessHoldsEndsBusyWithEveryByteAsItWas() throws {
        let db = try makeShellDatabase("held.db", key: keys["K"]!, rows: 40, extraSQL: "PRAGMA journal_mode = WAL;")
        let (holder, input) = try startShellHolding(db, "PRAGMA key = '\(keys["K"]!)'; PRAGMA wal_autocheckpoint = 0; INSERT INTO items(name) VALUES ('in the wal');")
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        let rekey = ["rekey", db, "--key-env", "K", "--new-key-env", "N", "--busy-timeout", "300"]
        let commands: [(name: String, arguments: [String])] = [
            ("rekey", rekey), ("rekey --in-place", rekey + ["--in-place"]), ("rekey --low-space", rekey + ["--low-space"]),
            ("rekey --new-kdf-iter", rekey + ["--new-kdf-iter", "5000"]),
            ("plaintext-header", ["plaintext-header", db, "--size", "32", "--key-env", "K", "--salt-output", path("s.salt"), "--busy-timeout", "300"]),
        ]
        XCTAssertGreaterThan(try fingerprint(db + "-wal").0.count, 0, "the holder's change is in the -wal")
        for command in commands {
            let before = try files()
            let result = try cipherctl(command.arguments, environment: keys)
            XCTAssertEqual(result.code, 6, "\(command.name): \(result.stderr)")
            XCTAssertEqual(try files(), before, "\(command.name) changed a file")
        }
    }

    /// The folder's files, the -shm's time aside: it is the WAL's shared index, which every
    /// connection's open stamps, the holder's too.
    private func files() throws -> [String: String] {
        var listing = try folderListing(directory.path)
        for (name, entry) in listing where name.hasSuffix("-shm") { listing[name] = String(entry.split(separator: " ").prefix(2).joined(separator: " ")) }
        return listing
    }
}

