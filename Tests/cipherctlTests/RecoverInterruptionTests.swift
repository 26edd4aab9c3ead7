import Foundation
import TestSupport
import XCTest

/// SIGINT and SIGTERM while `recover` writes the new database (sent once its temporary file
/// is there, not after a delay), to cipherctl alone or to its whole process group (as a
/// terminal's Ctrl-C does, which ends the recovery's shell too): the run says it was
/// interrupted (exit 1) and leaves no destination and no temporary file, or it had finished
/// (exit 0) and the destination is whole. The source is never changed.
final class RecoverInterruptionTests: CLITestCase {
    private let keys = ["K": "recover key", "K2": "recovered key"]

    func testASignalWhileTheNewDatabaseIsWrittenLeavesNothingBehind() throws {
        let source = try makeShellDatabase("source.db", key: keys["K"]!, rows: 40_000)
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        for (signal, group) in [(SIGTERM, false), (SIGINT, false), (SIGINT, true), (SIGTERM, true)] {
            let label = "signal \(signal)\(group ? " to the process group" : "")"
            let destination = path("saved-\(signal)-\(group).db")
            let process = Process()
            // Foundation starts cipherctl in a process group of its own, its shell inside it.
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = ["recover", source, destination, "--key-env", "K", "--to-key-env", "K2"]
            process.environment = Self.childEnvironment(home: directory.path).merging(keys) { $1 }
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            XCTAssertEqual(getpgid(process.processIdentifier), process.processIdentifier, "cipherctl leads its process group")
            let writing = waitForTemporaryFile(beside: destination, while: process)
            kill(group ? -process.processIdentifier : process.processIdentifier, signal)
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertTrue(writing, "\(label): the run wrote a temporary file before it ended")
            XCTAssertEqual(process.terminationReason, .exit, "\(label): the signal is handled, not fatal")
            if process.terminationStatus == 0 {
                XCTAssertEqual(try rowCount(destination), "40000", "\(label): a run that finished first is whole")
            } else {
                XCTAssertEqual(process.terminationStatus, 1, "\(label): \(stderr)")
                XCTAssertTrue(stderr.hasPrefix("cipherctl: error: interrupted"), "\(label): \(stderr)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: destination), label)
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("cipherctl-tmp") }
            XCTAssertEqual(leftovers, [], label)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: source)), before, "\(label): the source is only read")
        }
    }

    /// Polls until a temporary file of the destination's appears; false when the run ended first.
    private func waitForTemporaryFile(beside destination: String, while process: Process) -> Bool {
        let prefix = URL(fileURLWithPath: destination).lastPathComponent + ".cipherctl-tmp-"
        while process.isRunning {
            if (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.contains(where: { $0.hasPrefix(prefix) }) == true { return true }
            usleep(2_000)
        }
        return false
    }

    private func rowCount(_ database: String) throws -> String {
        String(try sqlcipherOK(database, "PRAGMA key = '\(keys["K2"]!)'; SELECT count(*) FROM items;").split(separator: "\n").last ?? "")
    }
}
