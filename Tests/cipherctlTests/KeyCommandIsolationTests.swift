import Foundation
import XCTest

/// A key command sees no other key of the run, and dies with cipherctl when an interrupt
/// ends the run (its process group is its own, so the terminal's Ctrl-C would miss it).
final class KeyCommandIsolationTests: CLITestCase {
    func testAKeyCommandSeesNoKeyVariableOfTheRun() throws {
        let database = try makeShellDatabase("iso.db", key: "the old key", rows: 2)
        let result = try cipherctl(["rekey", database, "--key-env", "K", "--new-key-cmd", "env > '\(path("seen.env"))'; echo the new key", "--dry-run"],
                                   environment: ["K": "the old key"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let seen = try String(contentsOfFile: path("seen.env"), encoding: .utf8)
        XCTAssertFalse(seen.contains("the old key"), "the new key's command saw the old key")
        XCTAssertTrue(seen.contains("PATH="), seen)
    }

    func testAnInterruptedRunKillsItsKeyCommand() throws {
        let database = try makeShellDatabase("int.db", key: "k", rows: 1)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["open", database, "--key-cmd", "echo $$ > '\(path("command.pid"))'; exec sleep 60"]
        process.environment = Self.childEnvironment(home: directory.path)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var pid: Int32?
        for _ in 0..<200 where pid == nil {
            Thread.sleep(forTimeInterval: 0.02)
            pid = (try? String(contentsOfFile: path("command.pid"), encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        let command = try XCTUnwrap(pid, "the key command did not start")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        var gone = false
        for _ in 0..<100 where !gone {
            gone = hasEnded(command)
            if !gone { Thread.sleep(forTimeInterval: 0.02) }
        }
        XCTAssertTrue(gone, "the key command outlived the interrupted run")
        if !gone { kill(command, SIGKILL) }
    }

    /// Whether `pid` has ended: gone, or a zombie that its new parent (init, once the run that
    /// started it has died) has not reaped yet, which some inits do only now and then.
    private func hasEnded(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return true }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let name = stat.lastIndex(of: ")") else { return true }
        return stat[name...].dropFirst(2).hasPrefix("Z")
    }

    func testAKeyFileIsMode0600WhateverTheUmask() throws {
        let result = try sh("umask 0777; \"$CIPHERCTL\" keygen --output '\(path("umask.key"))'")
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path("umask.key"))[.posixPermissions] as? Int, 0o600)
    }

    func testADerivedKeyIsNeverWrittenIntoItsDatabase() throws {
        let database = try makeShellDatabase("into.db", key: "k", rows: 1)
        let before = try fingerprint(database).0
        let result = try sh("K=k \"$CIPHERCTL\" keygen --derive '\(database)' --key-env K --output-fd 5 5>>'\(database)'")
        XCTAssertEqual(result.code, 2, result.stderr)
        XCTAssertEqual(try fingerprint(database).0, before)
    }
}
