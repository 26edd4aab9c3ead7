import Foundation
import XCTest

/// Faults placed with strace's injection at a chosen call, on the paths where they once did
/// harm; Scripts/faults places every fault at every call of every writing path.
final class PlacedFaultTests: CLITestCase {
    private let keys = ["OLD": "placed fault old key", "NEW": "placed fault new key"]
    private var oldSQL: String { "PRAGMA key = '\(keys["OLD"]!)';" }
    private var newSQL: String { "PRAGMA key = '\(keys["NEW"]!)';" }

    /// The keys, and under Scripts/sanitize no leak check (`tracedEnvironment(_:)`).
    private var tracedEnvironment: [String: String] { tracedEnvironment(keys) }

    /// cipherctl under strace, with `inject` (strace's `-e inject=` expression).
    private func cipherctlInjected(_ arguments: [String], inject: String) throws -> CommandResult {
        try run("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null", "-e", "inject=" + inject, Self.binary] + arguments, stdin: nil,
                environment: tracedEnvironment, timeout: 120)
    }

    /// The number of `syscall` calls the busiest thread of an uninterrupted run makes.
    private func callCount(_ syscall: String, _ arguments: [String], on database: String) throws -> Int {
        let copy = database + ".count"
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let trace = path("calls.trace")
        let result = try run("/usr/bin/strace", ["-f", "-qq", "-o", trace, "-e", "trace=" + syscall, Self.binary] + arguments.map { $0 == database ? copy : $0 },
                             stdin: nil, environment: tracedEnvironment)
        XCTAssertEqual(result.code, 0, result.stderr)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        try FileManager.default.removeItem(atPath: trace)
        return Dictionary(grouping: lines, by: { $0.split(separator: " ").first ?? "" }).values.map(\.count).max() ?? 0
    }

    /// Every page write of an in-place rekey, failed in turn with EIO or ENOSPC: the file opens
    /// with exactly one key and all its rows, the exit code says which (7 only when the new key
    /// opens it, 0 only when it is done), and the same command run again finishes the job.
    func testInPlaceRekeyWhosePageWriteFailsAtAnyPointOpensWithTheKeyItsExitCodeNames() throws {
        try requireStrace()
        let pristine = try makeShellDatabase("pristine.db", key: keys["OLD"]!, rows: 3000)
        let before = try XCTUnwrap(contentChecksum(pristine, keySQL: oldSQL))
        let db = path("db.db")
        let arguments = ["rekey", db, "--key-env", "OLD", "--new-key-env", "NEW", "--in-place"]
        try FileManager.default.copyItem(atPath: pristine, toPath: db)
        let writes = try callCount("pwrite64", arguments, on: db)
        XCTAssertGreaterThan(writes, 10)
        for write in 1...writes {
            for error in ["EIO", "ENOSPC"] {
                try? FileManager.default.removeItem(atPath: db)
                try FileManager.default.copyItem(atPath: pristine, toPath: db)
                let result = try cipherctlInjected(arguments, inject: "pwrite64:error=\(error):when=\(write)")
                let place = "\(error) at write \(write) of \(writes): exit \(result.code): \(result.stderr)"
                XCTAssertFalse(result.signaled, place)
                let withOld = try contentChecksum(db, keySQL: oldSQL), withNew = try contentChecksum(db, keySQL: newSQL)
                XCTAssertTrue((withOld == before) != (withNew == before), "exactly one key opens every row: " + place)
                if result.code == 0 || result.code == 7 {
                    XCTAssertEqual(withNew, before, place)
                } else {
                    XCTAssertEqual(withOld, before, place)
                    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["db.db", "pristine.db"], place)
                }
                let rerun = try cipherctl(arguments, environment: keys)
                XCTAssertEqual(rerun.code, 0, "rerun after " + place + "\n" + rerun.stderr)
                XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before, place)
            }
        }
    }

    /// An in-place rekey through a symbolic link, killed at each page write: its mark goes
    /// beside the file the link names, where SQLite puts the WAL, so a rerun by the file's own
    /// name puts the journal mode back and leaves nothing beside either name.
    func testAnInPlaceRekeyThroughALinkKilledAtAnyWriteIsFinishedByARerunByTheFilesOwnName() throws {
        try requireStrace()
        let pristine = try makeShellDatabase("pristine.db", key: keys["OLD"]!, rows: 1500)
        let before = try XCTUnwrap(contentChecksum(pristine, keySQL: oldSQL))
        try FileManager.default.createDirectory(atPath: path("real"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: path("links"), withIntermediateDirectories: false)
        let db = path("real/a.db"), link = path("links/a.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: db)
        let arguments = ["rekey", link, "--key-env", "OLD", "--new-key-env", "NEW"]
        try FileManager.default.copyItem(atPath: pristine, toPath: db)
        let writes = try callCount("pwrite64", arguments.map { $0 == link ? db : $0 }, on: db)
        for write in 1...writes {
            try? FileManager.default.removeItem(atPath: db)
            try FileManager.default.copyItem(atPath: pristine, toPath: db)
            _ = try cipherctlInjected(arguments, inject: "pwrite64:signal=KILL:when=\(write)")
            let rerun = try cipherctl(["rekey", db, "--key-env", "OLD", "--new-key-env", "NEW"], environment: keys)
            XCTAssertEqual(rerun.code, 0, "killed at write \(write): \(rerun.stderr)")
            XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before, "killed at write \(write)")
            XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA journal_mode;"), "ok\ndelete\n", "killed at write \(write)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("real")), ["a.db"], "killed at write \(write)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("links")), ["a.db"], "killed at write \(write)")
        }
    }

    /// A result that cannot be written after the change (EIO on standard output) is exit 7
    /// with one error line, never a crash, and the database is rekeyed.
    func testARekeyWhoseResultCannotBeWrittenExits7AndKeepsTheChange() throws {
        try requireStrace()
        let db = try makeShellDatabase("out.db", key: keys["OLD"]!, rows: 200)
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        // -P limits the injection to writes to the file standard output goes to.
        let result = try sh(
            "strace -f -qq -o /dev/null -P \"$OUT\" -e inject=write:error=EIO:when=1 \"$CIPHERCTL\" rekey \"$DB\" --key-env OLD --new-key-env NEW --json > \"$OUT\"",
            environment: tracedEnvironment.merging(["OUT": path("out.json"), "DB": db]) { $1 })
        XCTAssertFalse(result.signaled, result.stderr)
        XCTAssertEqual(result.code, 7, result.stderr)
        XCTAssertTrue(result.stderr.contains("could not be written to standard output"), result.stderr)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
    }
}
