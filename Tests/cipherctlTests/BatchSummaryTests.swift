import Foundation
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
}
