import Foundation
import TestSupport
import XCTest

/// A writing command that fails after its read-write open leaves every file as it found it:
/// the database and its -wal byte for byte, and no -shm or -wal that was not there. A
/// killed writer's -wal without its -shm is the state that showed it: the failed write's
/// close checkpointed the -wal into the file (or, where the checkpoint was off, left the
/// -shm its open made); beside a stale -shm, a large write grew it; and a commit whose sync
/// failed (EIO, placed with strace) could reach the -wal whole and be read by the next open
/// although the command said it failed.
///
/// One exception, SQLCipher's own: in a rollback-journal database a failed write that
/// outgrew SQLite's page cache had its pages written into the file, and the rollback writes
/// them back from the journal encrypted anew (new IVs), so there the content, not the bytes,
/// is what it was.
///
/// The format, rows, state and failing command are drawn from a printed seed: replay with
/// CIPHERCTL_FAILED_WRITE_SEED, widen with CIPHERCTL_FAILED_WRITE_CASES.
final class FailedWriteSweepTests: CLITestCase {
    private let keys = ["OLD": "failed write old", "NEW": "failed write new"]

    private enum State: String, CaseIterable {
        case killedWALWriter, killedWALWriterStaleShm, closedWAL, rollbackJournal
    }

    /// A command that fails on `f.db` after it opened it read-write, and its exit code.
    private struct FailingWrite {
        let name: String
        let arguments: [String]
        let code: Int32
        var spills = false
        /// Run under strace with this fault placed (`-e inject=…`).
        var fault: String?
    }

    private var failingWrites: [FailingWrite] {
        let old = ["--key-env", "OLD"]
        return [
            FailingWrite(name: "query --write, a key conflict", arguments: ["query", "f.db"] + old + ["--write", "INSERT INTO t(a, b) VALUES (1, 'x')"], code: 1),
            FailingWrite(name: "query --write, a missing table", arguments: ["query", "f.db"] + old + ["--write", "UPDATE t SET b = 'y'; SELECT * FROM missing"], code: 1),
            FailingWrite(name: "query --write, its own transaction", arguments: ["query", "f.db"] + old + ["--write", "BEGIN; DELETE FROM t; INSERT INTO missing VALUES (1); COMMIT"], code: 1),
            FailingWrite(name: "import, a key conflict", arguments: ["import", "f.db", "t", "conflict.csv"] + old, code: 2),
            // More than SQLite's page cache holds: the rollback leaves spilled frames in a -wal.
            FailingWrite(name: "import, a key conflict after 3 MB", arguments: ["import", "f.db", "t", "large.csv"] + old, code: 2, spills: true),
            // The commit's own sync fails: its frames may be in the -wal whole, though SQLite reports the failure.
            FailingWrite(name: "query --write, EIO at the commit's sync", arguments: ["query", "f.db"] + old + ["--write", "INSERT INTO t(b) VALUES ('synced?')"],
                         code: 1, fault: "fdatasync:error=EIO:when=1"),
            FailingWrite(name: "import, EIO at the commit's sync", arguments: ["import", "f.db", "t", "one.csv"] + old, code: 1, fault: "fdatasync:error=EIO:when=1"),
            FailingWrite(name: "import, an unknown column", arguments: ["import", "f.db", "t", "unknown.csv"] + old, code: 2),
            FailingWrite(name: "rekey to a plaintext header without a salt", arguments: ["rekey", "f.db"] + old + ["--new-key-env", "NEW", "--new-plaintext-header-size", "32"], code: 2),
        ]
    }

    func testAWritingCommandThatFailsAfterItsOpenLeavesTheFileAndItsCompanionsAsItFoundThem() throws {
        var (generator, seed) = SeededGenerator.forSweep("failed write sweep", variable: "CIPHERCTL_FAILED_WRITE_SEED")
        var problems: [String] = []
        for round in 0..<sweepCases("CIPHERCTL_FAILED_WRITE_CASES", quick: 1) {
            for write in failingWrites.shuffled(using: &generator) {
                for state in State.allCases {
                    let compatibility = Int.random(in: 3...4, using: &generator)
                    let folder = path("\(round)-\(problems.count)-\(Int.random(in: 0..<1_000_000, using: &generator))")
                    try make(state, in: folder, compatibility: compatibility, rows: Int.random(in: 2...600, using: &generator))
                    let keySQL = "PRAGMA key = '\(keys["OLD"]!)'; PRAGMA cipher_compatibility = \(compatibility);"
                    let contentOnly = state == .rollbackJournal && write.spills
                    problems += try check(write, in: folder, contentOnly ? keySQL : nil).map { "seed \(seed) round \(round) \(state) SQLCipher \(compatibility) \(write.name): \($0)" }
                }
            }
        }
        XCTAssertEqual(problems, [], "replay with CIPHERCTL_FAILED_WRITE_SEED=\(seed)")
    }

    /// With `contentKeySQL`, the database's rows are compared (read under it) rather than its bytes.
    private func check(_ write: FailingWrite, in folder: String, _ contentKeySQL: String?) throws -> [String] {
        let before = try listing(folder, contentKeySQL)
        let traced = write.fault.map { "strace -f -qq -o /dev/null -e inject=\($0) " } ?? ""
        let result = try sh("cd '\(folder)' && \(traced)\"$CIPHERCTL\" " + write.arguments.map { "'\($0)'" }.joined(separator: " "), environment: keys)
        var problems: [String] = []
        if result.code != write.code { problems.append("exit \(result.code), expected \(write.code): \(result.stderr)") }
        let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("cipherctl: error: ") }
        if errorLines.count != 1 { problems.append("expected one error line: \(result.stderr)") }
        let after = try listing(folder, contentKeySQL)
        if after != before { problems.append("files changed: \(before.sorted { $0.key < $1.key }) became \(after.sorted { $0.key < $1.key })") }
        return problems
    }

    private func listing(_ folder: String, _ contentKeySQL: String?) throws -> [String: String] {
        var files = try folderListing(folder)
        if let contentKeySQL {
            files["f.db"] = try contentChecksum(folder + "/f.db", keySQL: contentKeySQL) ?? "unreadable"
        }
        return files
    }

    /// `f.db` in `state`, with table t(a INTEGER PRIMARY KEY, b) holding `rows` rows, and
    /// the import inputs that fail on it.
    private func make(_ state: State, in folder: String, compatibility: Int, rows: Int) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let db = folder + "/f.db", keySQL = "PRAGMA key = '\(keys["OLD"]!)'; PRAGMA cipher_compatibility = \(compatibility);"
        let insert = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO t(b) SELECT hex(randomblob(i % 90)) FROM n;"
        try sqlcipherOK(db, keySQL + (state == .rollbackJournal ? "" : " PRAGMA journal_mode = WAL;") + " CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT); " + insert)
        if [.killedWALWriter, .killedWALWriterStaleShm].contains(state) {
            // A writer's files copied while it holds them: its last commits in the -wal, and no
            // -shm, or its -shm as it was then (no process holds it now).
            try leaveAsKilledWALWriter(
                db, keySQL: keySQL, sql: insert + " UPDATE t SET b = b || 'w' WHERE a % 3 = 0;", staleSharedMemory: state == .killedWALWriterStaleShm)
            XCTAssertEqual(FileManager.default.fileExists(atPath: db + "-shm"), state == .killedWALWriterStaleShm)
        }
        // New keys past every row, the killed writer's as well.
        let fresh = 10 * rows + 10
        try "a,b\n\(fresh),one\n".write(toFile: folder + "/one.csv", atomically: true, encoding: .utf8)
        try "a,b\n\(fresh),new\n1,conflict\n".write(toFile: folder + "/conflict.csv", atomically: true, encoding: .utf8)
        let filler = String(repeating: "x", count: 120)
        let large = (1...25_000).map { "\(fresh + $0),\(filler)\n" }.joined()
        try ("a,b\n" + large + "1,conflict\n").write(toFile: folder + "/large.csv", atomically: true, encoding: .utf8)
        try "a,b,c\n\(fresh),new,3\n".write(toFile: folder + "/unknown.csv", atomically: true, encoding: .utf8)
    }
}
