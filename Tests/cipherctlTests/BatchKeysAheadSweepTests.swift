import Foundation
import TestSupport
import XCTest

/// A batch rekey or audit derives its files' keys ahead, eight at a time in the SHA-512 lanes,
/// from a guess of each file's salt and settings. Whatever the guess misses, each database must
/// end as a rekey of it alone leaves it (the same exit, the same key opening it, the same
/// rows, nothing left beside it), and be reported as an audit of it alone reports it. `CIPHERCTL_AHEAD_SEED` replays a run, `CIPHERCTL_AHEAD_CASES`
/// widens it.
final class BatchKeysAheadSweepTests: CLITestCase {
    private let keys = ["OLD": "ahead old key", "NEW": "ahead new key"]

    /// A kind of database: the key it is under, the SQL that makes it (after the key), and the
    /// statements that open it (after the key) in the shell.
    private let kinds: [(name: String, key: String, settings: String)] = [
        ("SQLCipher 4 defaults", "ahead old key", ""),
        ("another KDF count", "ahead old key", "PRAGMA kdf_iter = 64000;"),
        ("SQLCipher 3", "ahead old key", "PRAGMA cipher_compatibility = 3;"),
        ("already under the new key", "ahead new key", ""),
        ("under another key", "some other key", ""),
    ]

    func testEachDatabaseOfABatchEndsAsARekeyOfItAloneLeavesIt() throws {
        var (generator, seed) = SeededGenerator.forSweep("batch keys ahead", variable: "CIPHERCTL_AHEAD_SEED")
        for round in 0..<sweepCases("CIPHERCTL_AHEAD_CASES", quick: 1) {
            let jobs = Int.random(in: 1...3, using: &generator)
            let (chosen, inBatch) = try makeDatabases("r\(round)", generator: &generator)
            let alone = try inBatch.map { made in
                let twin = made + "-alone.db"
                try FileManager.default.copyItem(atPath: made, toPath: twin)
                return twin
            }
            let label = "seed \(seed) round \(round) (\(chosen.map { kinds[$0].name }), --jobs \(jobs))"
            let batch = try cipherctl(["rekey"] + inBatch + ["--key-env", "OLD", "--new-key-env", "NEW", "--jobs", "\(jobs)"], environment: keys)
            let codes = try alone.map { try cipherctl(["rekey", $0, "--key-env", "OLD", "--new-key-env", "NEW"], environment: keys).code }
            XCTAssertEqual(batch.code == 0, codes.allSatisfy { $0 == 0 }, "\(label): \(batch.stderr)")
            for (index, kind) in chosen.enumerated() {
                try assertSameEnd(inBatch[index], alone[index], kind: kinds[kind], label: "\(label), database \(index)")
            }
            XCTAssertEqual(try temporaryLeftovers(), [], label)
        }
    }

    /// An audit under one passphrase derives each file's key ahead too; each file's report
    /// must be the one an audit of that file alone gives, in the order the files were named.
    /// (An audit only reads: a key that failed would send its open to the settings search,
    /// which derives on its own, so the bytes of the keys are `PreparedKeyTests`' to prove.)
    func testEachFileOfAnAuditIsReportedAsAnAuditOfItAloneReportsIt() throws {
        var (generator, seed) = SeededGenerator.forSweep("audit keys ahead", variable: "CIPHERCTL_AHEAD_SEED")
        for round in 0..<sweepCases("CIPHERCTL_AHEAD_CASES", quick: 1) {
            let jobs = Int.random(in: 1...3, using: &generator)
            let (chosen, files) = try makeDatabases("a\(round)", generator: &generator)
            let label = "seed \(seed) round \(round) (\(chosen.map { kinds[$0].name }), --jobs \(jobs))"
            let all = try cipherctl(["audit"] + files + ["--key-env", "OLD", "--json", "--jobs", "\(jobs)"], environment: keys)
            let reports = all.stdout.split(separator: "\n").dropLast().map(String.init)
            XCTAssertEqual(reports.count, files.count, "\(label): \(all.stderr)")
            for (index, file) in files.enumerated() where index < reports.count {
                let alone = try cipherctl(["audit", file, "--key-env", "OLD", "--json"], environment: keys)
                let own = try XCTUnwrap(alone.stdout.split(separator: "\n").first.map(String.init), "\(label): \(alone.stderr)")
                XCTAssertEqual(try jsonObject(reports[index]) as NSDictionary, try jsonObject(own) as NSDictionary, "\(label), file \(index)")
            }
        }
    }

    /// Two to ten databases of seeded kinds, mostly SQLCipher 4 defaults (which the guess gets
    /// right), every kind somewhere in a wider run; their kinds and paths.
    private func makeDatabases(_ prefix: String, generator: inout SeededGenerator) throws -> ([Int], [String]) {
        let count = Int.random(in: 2...10, using: &generator)
        let chosen = (0..<count).map { _ in Bool.random(using: &generator) ? 0 : Int.random(in: 0..<kinds.count, using: &generator) }
        let paths = try chosen.enumerated().map { index, kind in
            try makeShellDatabase("\(prefix)-\(index).db", key: kinds[kind].key, rows: 30, extraSQL: kinds[kind].settings)
        }
        return (chosen, paths)
    }

    /// Both files open under the same key, with the same rows, and not under the other.
    private func assertSameEnd(_ batched: String, _ alone: String, kind: (name: String, key: String, settings: String), label: String) throws {
        let fails = kind.key == "some other key"
        let opening = "PRAGMA key = '\(fails ? kind.key : "ahead new key")';\n" + kind.settings
        let other = "PRAGMA key = '\(fails ? "ahead new key" : kind.key == "ahead new key" ? "ahead old key" : kind.key)';\n" + kind.settings
        let expected = try XCTUnwrap(contentChecksum(alone, keySQL: opening), "\(label): the rekey alone")
        XCTAssertEqual(try contentChecksum(batched, keySQL: opening), expected, label)
        XCTAssertNil(try contentChecksum(batched, keySQL: other), "\(label): opens under another key too")
    }
}
