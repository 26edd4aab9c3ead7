import Foundation
import XCTest

/// The commands that only look (open, open --check, dump, diff, audit) leave every file as it
/// was: no -wal or -shm made beside a closed WAL database, no byte of a live one's -shm
/// written, and the journal mode still reported as the header records it.
final class LookOnlyTests: CLITestCase {
    private let keys = ["K": "look key"]

    func testLookingAtAClosedOrALiveWALDatabaseChangesNoFile() throws {
        let encrypted = try makeShellDatabase("enc.db", key: "look key", rows: 100, extraSQL: "PRAGMA journal_mode = WAL;")
        let plain = path("plain.db")
        try sqlcipherOK(plain, "PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        try lookAtEach(encrypted, plain, label: "closed")
        let (holder, input) = try startShellHolding(encrypted, "PRAGMA key = 'look key'; PRAGMA wal_autocheckpoint = 0; INSERT INTO items(name) VALUES ('live');")
        defer { try? input.fileHandleForWriting.close(); holder.waitUntilExit() }
        try lookAtEach(encrypted, plain, label: "live")
    }

    private func lookAtEach(_ encrypted: String, _ plain: String, label: String) throws {
        let commands: [[String]] = [
            ["open", encrypted, "--key-env", "K", "--json"], ["open", encrypted, "--key-env", "K", "--check"], ["open", plain, "--json"],
            ["dump", encrypted, "--key-env", "K"], ["dump", plain], ["diff", encrypted, plain, "--key-env", "K"],
            ["audit", encrypted, plain, "--key-env", "K"],
        ]
        for command in commands {
            let before = try state()
            let result = try cipherctl(command, environment: keys)
            XCTAssertTrue([0, 8].contains(result.code), "\(label) \(command): \(result.stderr)")
            XCTAssertEqual(try state(), before, "\(label) \(command): a file changed or appeared")
            if command[0] == "open", command.contains("--json") {
                XCTAssertEqual(try jsonObject(result.stdout)["journal_mode"] as? String, "wal", "\(label) \(command)")
            }
        }
    }

    /// Every file of the folder: its name, bytes and modification time.
    private func state() throws -> [String: String] {
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let (data, date) = try fingerprint(path(name))
            files[name] = "\(data.hashValue) \(data.count) \(date.timeIntervalSince1970)"
        }
        return files
    }
}
