import Foundation
import TestSupport
import XCTest

/// A WAL database whose last connection closed cleanly has no -wal or -shm, only its header
/// saying WAL. Every command that writes it, or writes a copy of it, must leave it so: the
/// database in WAL mode under the key it should have, its rows, and no -wal or -shm beside
/// it or beside what it wrote. (A read-write open of such a file makes both; a verification
/// through an ordinary read-only connection left them behind after exit 0.)
///
/// The format, rows and the order of the commands are drawn from a printed seed: replay with
/// CIPHERCTL_CLOSED_WAL_SEED, widen with CIPHERCTL_CLOSED_WAL_CASES.
final class ClosedWALWriteSweepTests: CLITestCase {
    private let keys = ["OLD": "closed wal old", "NEW": "closed wal new"]

    /// A command, the key that opens the file it names afterwards, and that file.
    private struct Writer {
        let name: String
        let arguments: [String]
        let resultKey: String
        var result = "w.db"
    }

    private var writers: [Writer] {
        let old = ["--key-env", "OLD"], rekey = ["rekey", "w.db"] + old + ["--new-key-env", "NEW"]
        return [
            Writer(name: "rekey", arguments: rekey, resultKey: "NEW"),
            Writer(name: "rekey --in-place", arguments: rekey + ["--in-place"], resultKey: "NEW"),
            Writer(name: "rekey --verify full", arguments: rekey + ["--verify", "full"], resultKey: "NEW"),
            Writer(name: "rekey --new-kdf-iter", arguments: rekey + ["--new-kdf-iter", "5000"], resultKey: "NEW"),
            Writer(name: "rekey --low-space", arguments: rekey + ["--low-space"], resultKey: "NEW"),
            Writer(name: "export", arguments: ["export", "w.db", "out.db"] + old + ["--to-key-env", "NEW"], resultKey: "NEW", result: "out.db"),
            Writer(name: "export --verify full", arguments: ["export", "w.db", "out.db"] + old + ["--to-key-env", "NEW", "--verify", "full"],
                   resultKey: "NEW", result: "out.db"),
            Writer(name: "query --write", arguments: ["query", "w.db"] + old + ["--write", "UPDATE t SET b = b"], resultKey: "OLD"),
        ]
    }

    func testEveryWritingCommandOnACleanlyClosedWALDatabaseKeepsItsRowsAndLeavesNoWALFiles() throws {
        var (generator, seed) = SeededGenerator.forSweep("closed WAL sweep", variable: "CIPHERCTL_CLOSED_WAL_SEED")
        var problems: [String] = []
        for round in 0..<sweepCases("CIPHERCTL_CLOSED_WAL_CASES", quick: 1) {
            for writer in writers.shuffled(using: &generator) {
                let folder = path("\(round)-\(writer.name.replacingOccurrences(of: " ", with: "_"))")
                let compatibility = Int.random(in: 3...4, using: &generator)
                let rows = try makeClosedWAL(in: folder, compatibility: compatibility, rows: Int.random(in: 1...400, using: &generator))
                problems += try check(writer, in: folder, compatibility: compatibility, rows: rows)
                    .map { "seed \(seed) round \(round) SQLCipher \(compatibility) \(writer.name): \($0)" }
            }
        }
        XCTAssertEqual(problems, [], "replay with CIPHERCTL_CLOSED_WAL_SEED=\(seed)")
    }

    /// Runs `writer` in `folder` and returns what is wrong afterwards.
    private func check(_ writer: Writer, in folder: String, compatibility: Int, rows: Int) throws -> [String] {
        let result = try sh("cd '\(folder)' && \"$CIPHERCTL\" " + writer.arguments.map { "'\($0)'" }.joined(separator: " "), environment: keys)
        guard result.code == 0 else { return ["exit \(result.code): \(result.stderr)"] }
        var problems: [String] = []
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }
        if !left.isEmpty { problems.append("left \(left.sorted()) after exit 0") }
        let key = try XCTUnwrap(keys[writer.resultKey])
        // An export writes SQLCipher 4's defaults; the rest keep the file's format and mode.
        let exported = writer.name.hasPrefix("export")
        let compat = exported ? 4 : compatibility
        let read = try sqlcipher(folder + "/" + writer.result, """
            PRAGMA key = '\(key)'; PRAGMA cipher_compatibility = \(compat);
            \(writer.name == "rekey --new-kdf-iter" ? "PRAGMA kdf_iter = 5000;" : "")
            SELECT count(*) FROM t; PRAGMA journal_mode;
            """)
        let lines = read.stdout.split(separator: "\n").filter { $0 != "ok" }
        if read.code != 0 || lines.first.map(String.init) != "\(rows)" { problems.append("the shell reads \(lines) (\(read.stderr)), expected \(rows) rows") }
        if !exported, lines.last != "wal" { problems.append("journal mode \(lines.last ?? "none"), expected wal") }
        return problems
    }

    /// A SQLCipher `compatibility` database in WAL mode with `rows` rows, its shell closed;
    /// returns the row count.
    private func makeClosedWAL(in folder: String, compatibility: Int, rows: Int) throws -> Int {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let db = folder + "/w.db"
        try sqlcipherOK(db, """
            PRAGMA key = '\(keys["OLD"]!)'; PRAGMA cipher_compatibility = \(compatibility); PRAGMA journal_mode = WAL;
            CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO t(b) SELECT hex(randomblob(i % 90)) FROM n;
            """)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"), "the shell's close removes the -wal")
        return rows
    }
}
