import Foundation
import TestSupport
import XCTest

/// A fault at every mutating call of `rekey --low-space` (each write, pwrite, fsync, ftruncate,
/// link and unlink, and each creating open), killed, failed with EIO, and with ENOSPC, as Scripts/faults
/// places them: the file opens with exactly one key and every row, its exit code saying which,
/// or it is named half-rotated, and then the same command finishes it (or, in the other
/// branch, chosen by a printed seed, `--undo` rolls it back), with every row and nothing left
/// beside it.
final class LowSpaceFaultSweepTests: CLITestCase {
    private let keys = ["OLD": "low space old key", "NEW": "low space new key"]
    private var oldSQL: String { "PRAGMA key = '\(keys["OLD"]!)';" }
    private var newSQL: String { "PRAGMA key = '\(keys["NEW"]!)';" }
    private static let syscalls = ["write", "pwrite64", "fsync", "ftruncate", "link", "unlink", "openat"]

    private func arguments(_ db: String) -> [String] { ["rekey", db, "--key-env", "OLD", "--new-key-env", "NEW", "--low-space"] }

    /// The numbers of the calls of `syscall` the uninterrupted run makes on its busiest
    /// thread, as strace's `when=` counts them; of `openat`, only those that create a file.
    private func callNumbers(_ syscall: String, on pristine: String) throws -> [Int] {
        let copy = path("count.db")
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: pristine, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let trace = path("calls.trace")
        let result = try run("/usr/bin/strace", ["-f", "-qq", "-o", trace, "-e", "trace=" + syscall, Self.binary] + arguments(copy),
                             stdin: nil, environment: tracedEnvironment(keys))
        XCTAssertEqual(result.code, 0, result.stderr)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        try FileManager.default.removeItem(atPath: trace)
        let busiest = Dictionary(grouping: lines, by: { $0.split(separator: " ").first ?? "" }).values.max { $0.count < $1.count } ?? []
        return busiest.enumerated().filter { syscall != "openat" || $0.element.contains("O_CREAT") }.map { $0.offset + 1 }
    }

    func testAFaultAtEveryWriteOfTheLowSpacePathLeavesOneKeyOrAHalfRotatedFileTheSameCommandFinishesOrUndoes() throws {
        try requireStrace()
        var (generator, seed) = SeededGenerator.forSweep("low-space fault sweep", variable: "CIPHERCTL_LOWSPACE_SWEEP_SEED")
        let pristine = try makeShellDatabase("pristine.db", key: keys["OLD"]!, rows: 12000)
        let before = try XCTUnwrap(contentChecksum(pristine, keySQL: oldSQL))
        var runs = 0, halfRotated = 0
        for syscall in Self.syscalls {
            let numbers = try callNumbers(syscall, on: pristine)
            for call in numbers {
                for fault in ["signal=KILL", "error=EIO", "error=ENOSPC"] {
                    let place = "seed \(seed), \(fault) at \(syscall) #\(call) of \(numbers.count)"
                    let undo = Bool.random(using: &generator)
                    halfRotated += try faultedRun(inject: "\(syscall):\(fault):when=\(call)", pristine: pristine, before: before, undo: undo, place: place) ? 1 : 0
                    runs += 1
                }
            }
        }
        print("low-space fault sweep: \(runs) runs, \(halfRotated) left the file half-rotated")
        XCTAssertGreaterThan(halfRotated, 0, "no fault landed between the first and the last chunk")
    }

    /// One faulted run and its checks; whether it left the file half-rotated.
    private func faultedRun(inject: String, pristine: String, before: String, undo: Bool, place: String) throws -> Bool {
        let db = path("db.db")
        try? FileManager.default.removeItem(atPath: db)
        try FileManager.default.copyItem(atPath: pristine, toPath: db)
        let result = try run("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null", "-e", "inject=" + inject, Self.binary] + arguments(db),
                             stdin: nil, environment: tracedEnvironment(keys), timeout: 120)
        let killed = result.signaled
        let what = place + ": exit \(result.code): \(result.stderr)"
        if !killed {
            XCTAssertTrue((0...7).contains(result.code), what)
            // A failed write may be the error line's own.
            let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("cipherctl: error:") }.count
            if result.code != 0, !(inject.hasPrefix("write:") && lines == 0) { XCTAssertEqual(lines, 1, what) }
        }
        let open = try cipherctl(["open", db, "--key-env", "NEW"], environment: keys)
        if open.stderr.contains("is half-rotated") {
            XCTAssertEqual(open.code, 1, what)
            XCTAssertTrue(killed || result.code == 1, "a run that left the file half-rotated says so: " + what)
            var finish = try cipherctl(arguments(db) + (undo ? ["--undo"] : []), environment: keys)
            // A rotation done but for its record's removal has nothing to undo: exit 2, then finished.
            let finished = undo && finish.code == 2 && finish.stderr.contains("the rotation had finished")
            if finished { finish = try cipherctl(arguments(db), environment: keys) }
            let undone = undo && !finished
            XCTAssertEqual(finish.code, 0, (undo ? "undo after " : "finish after ") + what + "\n" + finish.stderr)
            XCTAssertEqual(try contentChecksum(db, keySQL: undone ? oldSQL : newSQL), before, what)
            XCTAssertNil(try contentChecksum(db, keySQL: undone ? newSQL : oldSQL), what)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["db.db", "pristine.db"], what)
            return true
        }
        let withOld = try contentChecksum(db, keySQL: oldSQL), withNew = try contentChecksum(db, keySQL: newSQL)
        XCTAssertTrue((withOld == before) != (withNew == before), "exactly one key opens every row: " + what)
        if !killed { XCTAssertEqual(withNew == before, result.code == 0 || result.code == 7, what) }
        let rerun = try cipherctl(arguments(db), environment: keys)
        XCTAssertEqual(rerun.code, 0, "rerun after " + what + "\n" + rerun.stderr)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before, what)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["db.db", "pristine.db"], what)
        return false
    }
}
