import Foundation
import TestSupport
import XCTest

/// A batch rekey ends with one summary: rekeyed, already done, failed, not started; a rerun
/// of a rotation counts what the first run did as already done, with exit 0.
final class BatchSummaryTests: CLITestCase {
    private let keys = ["OLD": "summary old key", "NEW": "summary new key", "WRONG": "not the key"]

    private func databases(_ count: Int) throws -> [String] {
        try (1...count).map { try makeShellDatabase("db\($0).db", key: "summary old key", rows: 20) }
    }

    private func summary(_ stdout: String) throws -> [String: Any] {
        let last = try XCTUnwrap(stdout.split(separator: "\n").last.map(String.init))
        return try XCTUnwrap(try jsonObject(last)["summary"] as? [String: Any])
    }

    func testARerunOfARotationCountsTheDoneDatabasesAsAlreadyDoneAndExits0() throws {
        let all = try databases(4)
        let first = try cipherctl(["rekey", all[0], all[1], "--key-env", "OLD", "--new-key-env", "NEW"], environment: keys)
        XCTAssertEqual(first.code, 0, first.stderr)
        XCTAssertTrue(first.stdout.hasSuffix("2 databases: 2 rekeyed, 0 already done, 0 failed\n"), first.stdout)
        let rerun = try cipherctl(["rekey"] + all + ["--key-env", "OLD", "--new-key-env", "NEW", "--jobs", "2", "--json"], environment: keys)
        XCTAssertEqual(rerun.code, 0, rerun.stderr)
        let counted = try summary(rerun.stdout)
        XCTAssertEqual(counted["databases"] as? Int, 4)
        XCTAssertEqual(counted["rekeyed"] as? Int, 2)
        XCTAssertEqual(counted["already_done"] as? Int, 2)
        XCTAssertEqual(counted["failed"] as? Int, 0)
        XCTAssertEqual(rerun.stdout.split(separator: "\n").count, 5, "one object a database, then the summary")
    }

    func testFailuresAndUnstartedDatabasesAreCountedAndSetTheExitCode() throws {
        let all = try databases(3)
        let failed = try cipherctl(["rekey"] + all + ["--key-env", "WRONG", "--new-key-env", "NEW"], environment: keys)
        XCTAssertEqual(failed.code, 3, failed.stderr)
        XCTAssertTrue(failed.stdout.hasSuffix("3 databases: 0 rekeyed, 0 already done, 3 failed\n"), failed.stdout)
        let stopped = try cipherctl(["rekey"] + all + ["--key-env", "WRONG", "--new-key-env", "NEW", "--fail-fast", "--json"], environment: keys)
        XCTAssertEqual(stopped.code, 3, stopped.stderr)
        let counted = try summary(stopped.stdout)
        XCTAssertEqual(counted["failed"] as? Int, 1)
        XCTAssertEqual(counted["not_started"] as? Int, 2)
        let dry = try cipherctl(["rekey"] + all + ["--key-env", "OLD", "--new-key-env", "NEW", "--dry-run"], environment: keys)
        XCTAssertEqual(dry.code, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.hasSuffix("3 databases: 0 rekeyed, 0 already done, 3 checked (dry run), 0 failed\n"), dry.stdout)
    }

    /// An interrupt stops a batch: what was running is rolled back or finished as ever, and
    /// the databases not yet started are left alone and counted as not started, not failed.
    /// A refusal whose words name no file (a --salt that is not the file's) says which
    /// database of the batch it is about, once each; one that names its file is not named twice.
    func testEachFailureLineOfABatchNamesItsDatabase() throws {
        let all = try databases(2)
        let salt = try cipherctl(["rekey"] + all + ["--key-env", "OLD", "--new-key-env", "NEW", "--salt", String(repeating: "ab", count: 16)], environment: keys)
        XCTAssertEqual(salt.code, 2, salt.stderr)
        let lines = salt.stderr.split(separator: "\n").filter { $0.hasPrefix("cipherctl: error: ") }
        XCTAssertEqual(lines.count, 2, salt.stderr)
        for database in all {
            XCTAssertEqual(lines.filter { $0.hasPrefix("cipherctl: error: '\(database)': the salt given is not the file's") }.count, 1, salt.stderr)
        }
        let wrong = try cipherctl(["rekey"] + all + ["--key-env", "WRONG", "--new-key-env", "NEW"], environment: keys)
        for database in all {
            XCTAssertEqual(wrong.stderr.components(separatedBy: "'\(database)'").count, 2, "named once: \(wrong.stderr)")
        }
    }

    func testAnInterruptedBatchCountsTheDatabasesItNeverStartedAsNotStarted() throws {
        let all = try (1...40).map { try makeShellDatabase("i\($0).db", key: "summary old key", rows: 5) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["rekey"] + all + ["--key-env", "OLD", "--new-key-env", "NEW", "--jobs", "2", "--json"]
        process.environment = Self.childEnvironment(home: directory.path).merging(keys) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        Thread.sleep(forTimeInterval: 0.6)
        kill(process.processIdentifier, SIGINT)
        let stdout = String(decoding: Self.readToEnd(output.fileHandleForReading), as: UTF8.self)
        let stderr = String(decoding: Self.readToEnd(errors.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1, stderr)
        let counted = try summary(stdout)
        let (rekeyed, failed, notStarted) = (counted["rekeyed"] as? Int ?? -1, counted["failed"] as? Int ?? -1, counted["not_started"] as? Int ?? -1)
        XCTAssertEqual(rekeyed + failed + notStarted, all.count, stdout)
        XCTAssertGreaterThan(notStarted, 0, stdout)
        XCTAssertLessThanOrEqual(failed, 2, "only the databases running at the interrupt: \(stdout)")
        XCTAssertTrue(stderr.contains("interrupted: the databases not yet started are left as they were"), stderr)
        for db in all {
            let new = try contentChecksum(db, keySQL: "PRAGMA key = 'summary new key';")
            let old = try contentChecksum(db, keySQL: "PRAGMA key = 'summary old key';")
            XCTAssertTrue((new == nil) != (old == nil), "\(db) opens under exactly one key")
        }
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testTwoNamesOfOneFileInABatchAreExit2AndNothingIsRotated() throws {
        let all = try databases(2)
        let link = path("link.db"), hardLink = path("hard.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: all[0])
        try FileManager.default.linkItem(atPath: all[1], toPath: hardLink)
        let dotted = (all[0] as NSString).deletingLastPathComponent + "/./" + (all[0] as NSString).lastPathComponent
        let cases = [([all[0], link], "'\(link)' and '\(all[0])' are the same file"), ([hardLink, all[1]], "'\(all[1])' and '\(hardLink)' are the same file"),
                     ([all[0], dotted], "'\(dotted)' and '\(all[0])' are the same file"), ([all[1], all[0], all[1]], "'\(all[1])' is named twice")]
        for (twins, message) in cases {
            let result = try cipherctl(["rekey"] + twins + ["--key-env", "OLD", "--new-key-env", "NEW", "--jobs", "2"], environment: keys)
            XCTAssertEqual(result.code, 2, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: " + message), result.stderr)
        }
        for database in all {
            XCTAssertNotNil(try contentChecksum(database, keySQL: "PRAGMA key = 'summary old key';"), database)
        }
    }

    /// A batch killed with SIGKILL at seeded random moments, then run again: the rerun exits
    /// 0, every database opens with the new key alone and holds its rows, and nothing is left
    /// beside them. `CIPHERCTL_BATCH_KILL_SEED` replays a run, `CIPHERCTL_BATCH_KILL_CASES` widens it.
    func testABatchKilledAtSeededRandomMomentsIsFinishedByItsRerun() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["CIPHERCTL_BATCH_KILL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...999_999)
        let cases = environment["CIPHERCTL_BATCH_KILL_CASES"].flatMap(Int.init) ?? 4
        print("BatchSummaryTests: seed \(seed), \(cases) kills (CIPHERCTL_BATCH_KILL_SEED=\(seed) replays it)")
        var generator = SeededGenerator(seed: seed)
        for index in 0..<cases {
            let names = (1...4).map { "k\(index)-\($0).db" }
            let all = try names.map { try makeShellDatabase($0, key: "summary old key", rows: 3000) }
            let checksums = try all.map { try XCTUnwrap(contentChecksum($0, keySQL: "PRAGMA key = 'summary old key';")) }
            let arguments = ["rekey"] + all + ["--key-env", "OLD", "--new-key-env", "NEW", "--jobs", "2"]
            let delay = Double.random(in: 0.05...1.2, using: &generator)
            let label = "seed \(seed) case \(index), killed after \(String(format: "%.2f", delay)) s"
            try cipherctlKilled(arguments, environment: keys, after: delay)
            let rerun = try cipherctl(arguments + ["--json"], environment: keys)
            XCTAssertEqual(rerun.code, 0, "\(label): \(rerun.stderr)")
            XCTAssertEqual(try summary(rerun.stdout)["failed"] as? Int, 0, label)
            for (db, checksum) in zip(all, checksums) {
                XCTAssertEqual(try contentChecksum(db, keySQL: "PRAGMA key = 'summary new key';"), checksum, "\(label): \(db)")
                XCTAssertNil(try contentChecksum(db, keySQL: "PRAGMA key = 'summary old key';"), "\(label): \(db) still opens with the old key")
            }
            XCTAssertEqual(try temporaryLeftovers(), [], label)
        }
    }
}
