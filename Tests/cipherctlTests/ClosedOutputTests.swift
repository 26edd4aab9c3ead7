import Foundation
import XCTest

/// Every command with nowhere to write its output: a reader that went away (a pipe whose
/// read end is closed, so each write fails with EPIPE), a reader that stops after one line
/// (`| head -1`), or no standard output at all (`>&-`). None dies of a signal; one that only
/// looks ends with exit 0 when its reader went away and exit 5 when there is no output; one
/// that changed files says so on standard error and exits 7 (the change stands, only its
/// report was lost); `query --write` rolls back and exits 1; and the files are as each
/// outcome says.
final class ClosedOutputTests: CLITestCase {
    private let keys = ["K": "closed output key", "K2": "closed output key two"]

    private enum Outcome {
        /// Only looks: nothing changes.
        case looks
        /// Changes files, which `check` proves are changed.
        case changes(check: () throws -> Bool)
        /// Writes inside a transaction that the failed output rolls back, which `check` proves.
        case rollsBack(check: () throws -> Bool)
    }

    private struct Case {
        let arguments: [String]
        let outcome: Outcome
    }

    /// Runs cipherctl with a standard output whose reader has already gone.
    private func cipherctlWithoutReader(_ arguments: [String]) throws -> CommandResult {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        close(ends[0])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.environment = Self.childEnvironment(home: directory.path).merging(keys) { $1 }
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        close(ends[1])
        let stderr = Self.readToEnd(errors.fileHandleForReading)
        process.waitUntilExit()
        return CommandResult(code: process.terminationStatus, stdout: "", stderr: String(decoding: stderr, as: UTF8.self),
                             signaled: process.terminationReason == .uncaughtSignal)
    }

    /// Runs cipherctl with standard output closed (`>&-`).
    private func cipherctlWithoutOutput(_ arguments: [String]) throws -> CommandResult {
        try run("/bin/sh", ["-c", "exec \"$CIPHERCTL\" \"$@\" >&-", "sh"] + arguments, stdin: nil,
                environment: keys.merging(["CIPHERCTL": Self.binary]) { $1 })
    }

    /// Runs cipherctl with standard output on a device that is always full (`>/dev/full`).
    private func cipherctlIntoFullDevice(_ arguments: [String]) throws -> CommandResult {
        try run("/bin/sh", ["-c", "exec \"$CIPHERCTL\" \"$@\" >/dev/full", "sh"] + arguments, stdin: nil,
                environment: keys.merging(["CIPHERCTL": Self.binary]) { $1 })
    }

    /// Fresh files for one run: a database with enough rows that a query or dump fills a pipe.
    private func makeFiles() throws -> (db: String, other: String) {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            try FileManager.default.removeItem(atPath: path(name))
        }
        let db = try makeShellDatabase("a.db", key: keys["K"]!, rows: 3000)
        let other = path("b.db")
        try FileManager.default.copyItem(atPath: db, toPath: other)
        _ = try writeFile("rows.csv", "x,y\n1,2\n")
        return (db, other)
    }

    private func opens(_ path: String, _ variable: String) throws -> Bool {
        try cipherctl(["open", path, "--key-env", variable], environment: keys).code == 0
    }

    private func cases(db: String, other: String) -> [Case] {
        let rows = try? contentChecksum(db, keySQL: "PRAGMA key = '\(keys["K"]!)';")
        let unchanged = { try self.contentChecksum(db, keySQL: "PRAGMA key = '\(self.keys["K"]!)';") == rows }
        return [
            Case(arguments: ["open", db, "--key-env", "K"], outcome: .looks),
            Case(arguments: ["open", db, "--key-env", "K", "--json", "--counts", "--check"], outcome: .looks),
            Case(arguments: ["query", db, "--key-env", "K", "SELECT * FROM items, (SELECT 1 UNION SELECT 2)"], outcome: .looks),
            Case(arguments: ["query", db, "--key-env", "K", "--format", "jsonl", "SELECT * FROM items"], outcome: .looks),
            Case(arguments: ["dump", db, "--key-env", "K"], outcome: .looks),
            Case(arguments: ["diff", db, other, "--key-env", "K", "--other-key-env", "K", "--rows"], outcome: .looks),
            Case(arguments: ["audit", db, other, "--key-env", "K"], outcome: .looks),
            Case(arguments: ["salt", db], outcome: .looks),
            Case(arguments: ["plaintext-header", db], outcome: .looks),
            Case(arguments: ["keygen"], outcome: .looks),
            Case(arguments: ["completion", "bash"], outcome: .looks),
            Case(arguments: ["help", "query"], outcome: .looks),
            Case(arguments: ["--version", "--json"], outcome: .looks),
            // The new key opens it already: nothing is rewritten, so no change stands.
            Case(arguments: ["rekey", db, "--key-env", "K2", "--new-key-env", "K"], outcome: .looks),
            Case(arguments: ["query", db, "--key-env", "K", "--write", "--format", "jsonl", "UPDATE items SET name = 'x' RETURNING id"], outcome: .rollsBack(check: unchanged)),
            Case(arguments: ["query", db, "--key-env", "K", "--write", "--json", "--format", "json", "DELETE FROM items"], outcome: .rollsBack(check: unchanged)),
            Case(arguments: ["import", db, "imported", path("rows.csv"), "--key-env", "K"], outcome: .changes {
                try self.sqlcipher(db, "PRAGMA key = '\(self.keys["K"]!)'; SELECT count(*) FROM imported;").stdout.hasSuffix("1\n")
            }),
            Case(arguments: ["open", path("new.db"), "--create", "--key-env", "K"], outcome: .changes { try self.opens(self.path("new.db"), "K") }),
            Case(arguments: ["rekey", db, "--key-env", "K", "--new-key-env", "K2"], outcome: .changes { try self.opens(db, "K2") }),
            Case(arguments: ["export", db, path("copy.db"), "--key-env", "K", "--to-key-env", "K2"], outcome: .changes { try self.opens(self.path("copy.db"), "K2") }),
            Case(arguments: ["recover", db, path("saved.db"), "--key-env", "K", "--to-key-env", "K2"], outcome: .changes { try self.opens(self.path("saved.db"), "K2") }),
            Case(arguments: ["salt", db, "--output", path("a.salt")], outcome: .changes { FileManager.default.fileExists(atPath: self.path("a.salt")) }),
            Case(arguments: ["keygen", "--output", path("new.key")], outcome: .changes { FileManager.default.fileExists(atPath: self.path("new.key")) }),
            Case(arguments: ["plaintext-header", db, "--size", "32", "--key-env", "K", "--salt-output", path("header.salt")],
                 outcome: .changes { FileManager.default.fileExists(atPath: self.path("header.salt")) }),
        ]
    }

    func testEveryCommandWithNoReaderOrNoOutputEndsWithItsDocumentedCodeAndSaysWhatStands() throws {
        let count = try { () throws -> Int in let (db, other) = try makeFiles(); return cases(db: db, other: other).count }()
        let runs = [("no reader", cipherctlWithoutReader), ("no output", cipherctlWithoutOutput), ("full device", cipherctlIntoFullDevice)]
        for (label, run) in runs {
            for index in 0..<count {
                let (db, other) = try makeFiles()
                let testCase = cases(db: db, other: other)[index]
                let result = try run(testCase.arguments)
                let name = "\(label): \(testCase.arguments.prefix(2).joined(separator: " ")) \(testCase.arguments.dropFirst(2).filter { $0.hasPrefix("--") }.joined(separator: " "))"
                XCTAssertFalse(result.signaled, "\(name) died of a signal")
                switch testCase.outcome {
                case .looks:
                    XCTAssertEqual(result.code, label == "no reader" ? 0 : 5, "\(name): \(result.stderr)")
                    if label != "no reader" {
                        // Every command says it in the one sentence, on one error line (or one JSON error).
                        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("cipherctl: error: ") || $0.hasPrefix("{\"error\":") }
                        XCTAssertEqual(errors.count, 1, "\(name): \(result.stderr)")
                        XCTAssertTrue(errors.first?.contains("the result could not be written to standard output (") == true,
                                      "\(name) says why: \(result.stderr)")
                    }
                case .rollsBack(let check):
                    XCTAssertEqual(result.code, 5, "\(name): \(result.stderr)")
                    XCTAssertTrue(result.stderr.contains("could not be written to standard output ("), "\(name): \(result.stderr)")
                    XCTAssertTrue(result.stderr.contains("; the transaction was rolled back, nothing was changed"), "\(name): \(result.stderr)")
                    XCTAssertTrue(try check(), "\(name) changed the database")
                case .changes(let check):
                    XCTAssertEqual(result.code, 7, "\(name): \(result.stderr)")
                    XCTAssertTrue(result.stderr.contains("the change itself was made"), "\(name) says the change stands: \(result.stderr)")
                    XCTAssertTrue(try check(), "\(name): the change is not there")
                }
                XCTAssertTrue(try temporaryLeftovers().isEmpty, "\(name) left temporary files")
            }
        }
    }

    func testALookWithNoOutputEndsWith5WhateverItFoundAuditsFindingsAmongThem() throws {
        let (db, other) = try makeFiles()
        try sqlcipherOK(other, "PRAGMA key = '\(keys["K"]!)'; UPDATE items SET name = 'changed' WHERE id = 1;")
        for second in [db, other] {
            let result = try cipherctlWithoutOutput(["diff", db, second, "--key-env", "K", "--other-key-env", "K", "--rows"])
            XCTAssertEqual(result.code, 5, "diff of \(second == db ? "the same" : "different") databases: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("standard output"), result.stderr)
        }
        // An audit with findings (a key that opens neither file) lost its report too: exit 5, one line.
        for json in [false, true] {
            let result = try cipherctlWithoutOutput(["audit", db, other, "--key-env", "K2"] + (json ? ["--json"] : []))
            XCTAssertEqual(result.code, 5, "audit with findings, json \(json): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains("standard output"), result.stderr)
        }
    }

    func testAReaderThatStopsAfterOneLineEndsTheLongOutputsQuietly() throws {
        let (db, _) = try makeFiles()
        for arguments in [
            ["query", db, "--key-env", "K", "SELECT * FROM items, items AS b LIMIT 200000"],
            ["query", db, "--key-env", "K", "--format", "json", "SELECT * FROM items, items AS b LIMIT 200000"],
            ["dump", db, "--key-env", "K"],
            ["open", db, "--key-env", "K", "--counts"],
        ] {
            let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let result = try run("/bin/bash", ["-c", "\"$CIPHERCTL\" \(quoted) | head -1 >/dev/null; echo \"${PIPESTATUS[0]}\""], stdin: nil,
                                 environment: keys.merging(["CIPHERCTL": Self.binary]) { $1 })
            XCTAssertEqual(result.stdout, "0\n", "\(arguments[0]): \(result.stderr)")
            XCTAssertEqual(result.stderr, "", "\(arguments[0]) ends quietly")
        }
    }
}
