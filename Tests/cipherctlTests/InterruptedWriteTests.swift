import Foundation
import TestSupport
import XCTest

/// SIGINT and SIGTERM while `recover` and `import` write (sent once the write has left its
/// first file on disk, not after a delay), to cipherctl alone or to its whole process group
/// (as a terminal's Ctrl-C does, which ends recover's shell too): the run says it was
/// interrupted (exit 1) and leaves every file as it was, with no temporary file and no
/// journal, or it had finished (exit 0) and what it wrote is whole.
final class InterruptedWriteTests: CLITestCase {
    private let keys = ["K": "recover key", "K2": "recovered key"]
    private let signals = [(SIGTERM, false), (SIGINT, false), (SIGINT, true), (SIGTERM, true)]

    func testASignalWhileRecoverWritesTheNewDatabaseLeavesNothingBehind() throws {
        let source = try makeShellDatabase("source.db", key: keys["K"]!, rows: 40_000)
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        for (signal, group) in signals {
            let label = "recover, signal \(signal)\(group ? " to the process group" : "")"
            let destination = path("saved-\(signal)-\(group).db")
            let prefix = "saved-\(signal)-\(group).db.cipherctl-tmp-"
            let (code, stderr) = try interrupt(["recover", source, destination, "--key-env", "K", "--to-key-env", "K2"], signal: signal, group: group,
                                               label: label) { $0.hasPrefix(prefix) }
            if code == 0 {
                XCTAssertEqual(try count("items", in: destination, key: keys["K2"]!), "40000", "\(label): a run that finished first is whole")
            } else {
                XCTAssertEqual(code, 1, "\(label): \(stderr)")
                XCTAssertTrue(stderr.hasPrefix("cipherctl: error: interrupted"), "\(label): \(stderr)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: destination), label)
            }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: source)), before, "\(label): the source is only read")
        }
    }

    func testASignalWhileImportWritesRollsBackAndLeavesNoJournal() throws {
        let rows = 600_000
        let csv = path("rows.csv")
        FileManager.default.createFile(atPath: csv, contents: Data(("a,b\n" + (0..<rows).map { "\($0),value \($0) of the import\n" }.joined()).utf8))
        let database = try makeShellDatabase("target.db", key: keys["K"]!, rows: 10)
        for (signal, group) in signals {
            let label = "import, signal \(signal)\(group ? " to the process group" : "")"
            let table = "t\(signal)\(group ? "g" : "")"
            let before = try Data(contentsOf: URL(fileURLWithPath: database))
            let (code, stderr) = try interrupt(["import", database, table, csv, "--key-env", "K"], signal: signal, group: group, label: label) {
                $0 == "target.db-journal"
            }
            if code == 0 {
                XCTAssertEqual(try count(table, in: database, key: keys["K"]!), "\(rows)", "\(label): a run that finished first is whole")
            } else {
                XCTAssertEqual(code, 1, "\(label): \(stderr)")
                XCTAssertTrue(stderr.hasPrefix("cipherctl: error: interrupted"), "\(label): \(stderr)")
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), before, "\(label): rolled back")
            }
        }
    }

    /// Runs cipherctl, sends `signal` once a file of the folder passes `written`, and returns
    /// its exit code and standard error. Fails the test if the run died of the signal, ended
    /// before it wrote, or left a temporary file or journal.
    private func interrupt(
        _ arguments: [String], signal: Int32, group: Bool, label: String, written: (String) -> Bool
    ) throws -> (Int32, String) {
        let process = Process()
        // Foundation starts cipherctl in a process group of its own, recover's shell inside it.
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.environment = Self.childEnvironment(home: directory.path).merging(keys) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        XCTAssertEqual(getpgid(process.processIdentifier), process.processIdentifier, "cipherctl leads its process group")
        var writing = false
        while process.isRunning, !writing {
            writing = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.contains(where: written) == true
            if !writing { usleep(1_000) }
        }
        kill(group ? -process.processIdentifier : process.processIdentifier, signal)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertTrue(writing, "\(label): the run wrote before it ended")
        XCTAssertEqual(process.terminationReason, .exit, "\(label): the signal is handled, not fatal")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("cipherctl-tmp") || $0.hasSuffix("-journal") }
        XCTAssertEqual(left, [], label)
        return (process.terminationStatus, stderr)
    }

    private func count(_ table: String, in database: String, key: String) throws -> String {
        String(try sqlcipherOK(database, "PRAGMA key = '\(key)'; SELECT count(*) FROM \(table);").split(separator: "\n").last ?? "")
    }
}
