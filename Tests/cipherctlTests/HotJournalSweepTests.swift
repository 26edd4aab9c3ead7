import Foundation
import TestSupport
import XCTest

/// A hot journal is rolled back in memory exactly as SQLite rolls it back on disk, for every
/// way a journal can be written: page sizes, synchronous OFF (one segment, no page count),
/// NORMAL and FULL, caches that spill once or many times (several segments), the journal
/// modes that leave a journal behind, encrypted and plaintext files, and a journal whose tail
/// was cut. The oracle is the sqlcipher shell on a writable copy; the files are never
/// changed. Replay with CIPHERCTL_JOURNAL_SEED, widen with CIPHERCTL_JOURNAL_CASES.
final class HotJournalSweepTests: CLITestCase {
    private let key = "journal key"

    func testAHotJournalOfEveryShapeIsRolledBackInMemoryAsSQLiteRollsItBack() throws {
        var (generator, seed) = SeededGenerator.forSweep("hot journal sweep", variable: "CIPHERCTL_JOURNAL_SEED")
        let cases = sweepCases("CIPHERCTL_JOURNAL_CASES", quick: 6)
        var disagreements: [String] = []
        var hot = 0
        for number in 0..<cases {
            let shape = Shape(using: &generator)
            let folder = path("case-\(number)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let (problem, wasHot) = try check(shape, in: folder, using: &generator)
            if let problem { disagreements.append("seed \(seed) case \(number) (\(shape)): \(problem)") }
            hot += wasHot ? 1 : 0
        }
        print("hot journal sweep: \(hot) of \(cases) cases left a hot journal")
        XCTAssertGreaterThan(hot, cases / 3, "most interrupted writers must leave a hot journal, or the sweep tests nothing")
        XCTAssertEqual(disagreements, [], "replay with CIPHERCTL_JOURNAL_SEED=\(seed)")
    }

    /// How the interrupted writer wrote its journal.
    private struct Shape: CustomStringConvertible {
        let encrypted: Bool
        let pageSize: Int
        let synchronous: String
        let journalMode: String
        let cacheSize: Int
        let rows: Int
        let cutTail: Bool

        init(using generator: inout SeededGenerator) {
            encrypted = Bool.random(using: &generator)
            pageSize = [1024, 4096, 8192, 65536].randomElement(using: &generator)!
            synchronous = ["OFF", "NORMAL", "FULL"].randomElement(using: &generator)!
            journalMode = ["DELETE", "PERSIST", "TRUNCATE"].randomElement(using: &generator)!
            cacheSize = Int.random(in: 2...20, using: &generator)
            rows = Int.random(in: 200...2500, using: &generator)
            cutTail = Int.random(in: 0..<4, using: &generator) == 0
        }

        var description: String {
            "\(encrypted ? "encrypted" : "plaintext"), page \(pageSize), synchronous \(synchronous), \(journalMode), cache \(cacheSize), "
                + "\(rows) rows\(cutTail ? ", tail cut" : "")"
        }
    }

    /// What disagreed (nil: nothing), and whether the journal was hot.
    private func check(_ shape: Shape, in folder: String, using generator: inout SeededGenerator) throws -> (String?, Bool) {
        let db = folder + "/j.db"
        let keySQL = shape.encrypted ? "PRAGMA key = '\(key)'; PRAGMA cipher_page_size = \(shape.pageSize);" : "PRAGMA page_size = \(shape.pageSize);"
        try sqlcipherOK(db, """
            \(keySQL) PRAGMA journal_mode = \(shape.journalMode);
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(shape.rows))
            INSERT INTO t(a, b) SELECT 'row ' || i, randomblob(i % 700) FROM n;
            """)
        let pick = Int.random(in: 2...9, using: &generator)
        let (holder, input) = try startShellHolding(db, """
            \(keySQL) PRAGMA journal_mode = \(shape.journalMode); PRAGMA synchronous = \(shape.synchronous); PRAGMA cache_size = \(shape.cacheSize);
            BEGIN;
            UPDATE t SET a = a || ' torn', b = randomblob(\(pick * 50)) WHERE id % \(pick) = 0;
            DELETE FROM t WHERE id % \(pick + 1) = 0;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(shape.rows / pick))
            INSERT INTO t(a, b) SELECT 'new ' || i, randomblob(900) FROM n;
            """)
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        try? input.fileHandleForWriting.close()
        let journal = db + "-journal"
        if shape.cutTail, let size = try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int, size > 1000 {
            try FileHandle(forWritingTo: URL(fileURLWithPath: journal)).truncate(atOffset: UInt64(Int.random(in: 512..<size, using: &generator)))
        }
        let wasHot = (FileManager.default.contents(atPath: journal)?.first ?? 0) != 0
        let before = try folderListing(folder)
        let expected = try shellRead(folder, keySQL: keySQL)
        let arguments = ["query", db, "--format", "value", Self.digestSQL] + (shape.encrypted ? ["--key-env", "K"] : [])
        let result = try cipherctl(arguments, environment: ["K": key])
        guard try folderListing(folder) == before else { return ("the folder changed", wasHot) }
        return (Self.disagreement(result, expected: expected), wasHot)
    }

    private static func disagreement(_ result: CommandResult, expected: String?) -> String? {
        guard let rows = expected else {
            return result.code == 4 ? nil : "exit \(result.code) where the shell finds the rolled-back file malformed: \(result.stderr)"
        }
        guard result.code == 0 else { return "exit \(result.code) where the shell reads: \(result.stderr)" }
        return result.stdout.trimmingCharacters(in: .newlines) == rows ? nil : "the rows differ from the shell's rollback"
    }

    private static let digestSQL =
        "SELECT count(*) || ':' || coalesce(group_concat(r, ';'), '') FROM (SELECT id || ',' || quote(a) || ',' || hex(b) AS r FROM t ORDER BY id)"

    /// The rows the shell reads from a writable copy, after rolling its journal back; nil
    /// when the shell finds the result malformed.
    private func shellRead(_ folder: String, keySQL: String) throws -> String? {
        let copy = path("copy-\(UUID().uuidString)")
        try copyFolder(folder, to: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let result = try sqlcipher(copy + "/j.db", keySQL + "\n" + Self.digestSQL + ";")
        guard result.code == 0 else { return nil }
        return result.stdout.split(separator: "\n").filter { $0 != "ok" && !$0.hasPrefix("delete") && !$0.hasPrefix("persist") && !$0.hasPrefix("truncate") }
            .joined(separator: "\n")
    }
}
