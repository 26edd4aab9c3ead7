import Foundation
import TestSupport
import XCTest

/// `rekey --low-space` between its start and its end: what other programs can do to the file,
/// what a second run does, and what a finishing run reports.
final class LowSpaceInterruptionTests: CLITestCase {
    private let keys = ["OLD": "low space old key", "NEW": "low space new key"]
    private var oldSQL: String { "PRAGMA key = '\(keys["OLD"]!)';" }
    private var newSQL: String { "PRAGMA key = '\(keys["NEW"]!)';" }
    private func arguments(_ db: String) -> [String] { ["rekey", db, "--key-env", "OLD", "--new-key-env", "NEW", "--low-space"] }

    /// Kills the run at its `call`th pwrite (1: saving the first chunk, 2: poisoning page 1,
    /// 3: the first chunk's pages).
    private func killed(_ db: String, at call: Int, extra: [String] = []) throws {
        try requireStrace()
        let result = try run("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null", "-e", "inject=pwrite64:signal=KILL:when=\(call)", Self.binary] + arguments(db) + extra,
                             stdin: nil, environment: tracedEnvironment(keys))
        XCTAssertTrue(result.signaled, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: db + ".cipherctl-rotation"))
    }

    /// Killed before page 1 is poisoned, the file is still the old key's whole, and a program
    /// may write to it: the finishing run keeps those writes (it puts back no saved chunk over
    /// a chunk whole under one key). Killed once page 1 is poisoned, no SQLCipher program
    /// opens the file under either key.
    func testWritesMadeBeforePageOneIsPoisonedSurviveTheFinishAndAfterItNoSQLCipherProgramOpensTheFile() throws {
        for call in [1, 2] {
            let db = try makeShellDatabase("w\(call).db", key: keys["OLD"]!, rows: 12000)
            try killed(db, at: call)
            try sqlcipherOK(db, oldSQL + "UPDATE items SET name = 'changed meanwhile' WHERE id IN (10, 4500, 5000, 11999);")
            let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
            let finished = try cipherctl(arguments(db), environment: keys)
            XCTAssertEqual(finished.code, 0, "kill at pwrite \(call): \(finished.stderr)")
            XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before, "kill at pwrite \(call)")
            XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA integrity_check; SELECT count(*) FROM items WHERE name = 'changed meanwhile';"), "ok\nok\n4\n")
        }
        let db = try makeShellDatabase("p.db", key: keys["OLD"]!, rows: 12000)
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        try killed(db, at: 3)
        for keySQL in [oldSQL, newSQL] {
            XCTAssertNotEqual(try sqlcipher(db, keySQL + "SELECT count(*) FROM items;").code, 0, "the shell read a half-rotated file")
        }
        XCTAssertEqual(try cipherctl(arguments(db), environment: keys).code, 0)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
    }

    /// A half-rotated file whose record was taken away (deleted, or a backup of the database
    /// alone) is named as such to its old key, by every command (exit 1) and by audit, not
    /// called damaged or a wrong key; with the record back, the same command finishes.
    func testAHalfRotatedFileWithoutItsRecordIsNamedAndFinishesOnceTheRecordIsBack() throws {
        let db = try makeShellDatabase("r.db", key: keys["OLD"]!, rows: 12000)
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        try killed(db, at: 3)
        let record = db + ".cipherctl-rotation", aside = path("record aside")
        try FileManager.default.moveItem(atPath: record, toPath: aside)
        for command in [["open", db], ["query", db, "SELECT 1"], ["export", db, path("copy.db"), "--to-key-env", "NEW"]] {
            let refused = try cipherctl(command + ["--key-env", "OLD"], environment: keys)
            XCTAssertEqual(refused.code, 1, "\(command[0]): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("half-rotated") && refused.stderr.contains("record is missing"), refused.stderr)
        }
        let audited = try cipherctl(["audit", db, "--key-env", "OLD", "--json"], environment: keys)
        let report = try jsonObject(String(audited.stdout.split(separator: "\n")[0]))
        XCTAssertEqual((report["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String }, ["half-rotated"], audited.stdout)
        XCTAssertEqual(report["kind"] as? String, "sqlcipher", "the old key shows the rotation's mark: \(audited.stdout)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("copy.db")))
        try FileManager.default.moveItem(atPath: aside, toPath: record)
        XCTAssertEqual(try cipherctl(arguments(db), environment: keys).code, 0)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
    }

    /// The finishing run says so: JSON `finished_interrupted`, and the text line; `--undo` too.
    /// A fresh random salt asked of a rotation that keeps its salt is another rotation: exit 3.
    func testAFinishingRunSaysItFinishedAnInterruptedRotationAndRefusesANewRandomSalt() throws {
        for undo in [false, true] {
            let db = try makeShellDatabase(undo ? "u.db" : "f.db", key: keys["OLD"]!, rows: 12000)
            try killed(db, at: 5)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
            let salted = try cipherctl(arguments(db) + ["--new-salt"], environment: keys)
            XCTAssertEqual(salted.code, 3, salted.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), bytes)
            let finished = try cipherctl(arguments(db) + (undo ? ["--undo"] : []) + ["--json"], environment: keys)
            XCTAssertEqual(finished.code, 0, finished.stderr)
            XCTAssertEqual(try jsonObject(finished.stdout)["finished_interrupted"] as? Bool, true)
            XCTAssertEqual(try jsonObject(finished.stdout)["action"] as? String, undo ? "undone" : "low-space")
        }
        let db = try makeShellDatabase("t.db", key: keys["OLD"]!, rows: 12000)
        try killed(db, at: 5)
        XCTAssertTrue(try cipherctl(arguments(db), environment: keys).stdout.contains("(an interrupted rotation, finished)"))
    }

    /// Two runs at once on one file: each ends done (0) or busy (6), never damage or a wrong
    /// key, and the file ends under the new key with every row.
    func testTwoRunsAtOnceEndDoneOrBusyAndTheFileUnderTheNewKey() throws {
        for trial in 0..<6 {
            let db = try makeShellDatabase("c\(trial).db", key: keys["OLD"]!, rows: 12000)
            let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
            let command = "\"$CIPHERCTL\" rekey '\(db)' --key-env OLD --new-key-env NEW --low-space --busy-timeout 0"
            let both = try sh("(\(command) 2>/dev/null; echo \"a $?\") & (\(command) 2>/dev/null; echo \"b $?\") & wait", environment: keys)
            let codes = both.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            XCTAssertEqual(codes.count, 2, both.stdout)
            XCTAssertTrue(codes.allSatisfy { [0, 6].contains($0) }, "trial \(trial): \(codes)")
            if codes.contains(6) { XCTAssertEqual(try cipherctl(arguments(db), environment: keys).code, 0) }
            XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before, "trial \(trial)")
        }
    }

    /// A disk without room for the record is exit 5 before anything is written, the file as
    /// it was and nothing beside it.
    func testADiskWithoutRoomForTheRecordIsExit5WithNothingChanged() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root") }
        let mount = path("small-fs")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mount], stdin: nil, environment: [:])
        guard mounted.code == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(mounted.stderr)") }
        defer { _ = try? run("/bin/umount", [mount], stdin: nil, environment: [:]) }
        let db = mount + "/full.db"
        try FileManager.default.copyItem(atPath: try makeShellDatabase("source.db", key: keys["OLD"]!, rows: 9000), toPath: db)
        let filler = try sh("dd if=/dev/zero of='\(mount)/filler' bs=64k count=100 2>/dev/null; true")
        XCTAssertEqual(filler.code, 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let result = try cipherctl(arguments(db) + ["--json"], environment: keys)
        XCTAssertEqual(result.code, 5, result.stderr)
        XCTAssertEqual(try jsonObject(String(result.stderr.split(separator: "\n").last ?? ""))["reason"] as? String, "insufficient-space", result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), bytes)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mount).sorted(), ["filler", "full.db"])
    }

    /// Killed when every page was written but the record not yet removed, the file is whole
    /// under the new key, and a program may write to it (here growing it): `--undo` has
    /// nothing to undo (exit 2, nothing changed), and finishing keeps every write.
    func testARotationDoneButForItsRecordKeepsLaterWritesAndHasNothingToUndo() throws {
        try requireStrace()
        let db = try makeShellDatabase("d.db", key: keys["OLD"]!, rows: 12000)
        let killed = try run("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null", "-e", "inject=ftruncate:signal=KILL:when=1", Self.binary] + arguments(db),
                             stdin: nil, environment: tracedEnvironment(keys))
        XCTAssertTrue(killed.signaled, killed.stderr)
        try sqlcipherOK(db, newSQL + "CREATE TABLE extra(x); INSERT INTO extra SELECT randomblob(500) FROM items; PRAGMA user_version = 99;")
        let before = try XCTUnwrap(contentChecksum(db, keySQL: newSQL))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let undo = try cipherctl(arguments(db) + ["--undo", "--json"], environment: keys)
        XCTAssertEqual(undo.code, 2, undo.stderr)
        XCTAssertEqual(try jsonObject(String(undo.stderr.split(separator: "\n").last ?? ""))["reason"] as? String, "rotation-finished")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), bytes)
        let finished = try cipherctl(arguments(db), environment: keys)
        XCTAssertEqual(finished.code, 0, finished.stderr)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA integrity_check; PRAGMA user_version;"), "ok\nok\n99\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + ".cipherctl-rotation"))
    }

    /// A failure of the write that poisons page 1 leaves the file as it was and no record
    /// (not half-rotated); a run killed before it is finished under other settings than its
    /// own, since it wrote no page: the rotation starts over.
    func testAFailureBeforeAnyPageIsWrittenLeavesNoRecordAndAStaleRecordTakesNewSettings() throws {
        try requireStrace()
        let db = try makeShellDatabase("e.db", key: keys["OLD"]!, rows: 12000)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let failed = try run("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null", "-e", "inject=pwrite64:error=EIO:when=2", Self.binary] + arguments(db),
                             stdin: nil, environment: tracedEnvironment(keys))
        XCTAssertNotEqual(failed.code, 0, failed.stderr)
        XCTAssertNotEqual(failed.code, 1, failed.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), bytes)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + ".cipherctl-rotation"))
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        try killed(db, at: 2)
        let finished = try cipherctl(arguments(db) + ["--new-kdf-iter", "9000"], environment: keys)
        XCTAssertEqual(finished.code, 0, finished.stderr)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL + " PRAGMA kdf_iter = 9000;"), before)
    }

    /// A key ring names the old key of a half-rotated file by the record's page 1, which every
    /// open refuses: the same command with the ring (its right key anywhere in it, wrong ones
    /// around it) finishes the rotation, or undoes it, and a ring without the key is exit 3.
    /// A command given no key names the file half-rotated (exit 1), not keyless.
    func testAKeyRingFinishesOrUndoesAnInterruptedRotationWithTheKeyThatOpensTheRecord() throws {
        var (generator, seed) = SeededGenerator.forSweep("half-rotated ring", variable: "CIPHERCTL_HALF_ROTATED_RING_SEED")
        var environment = keys
        for undo in [false, true] {
            let db = try makeShellDatabase(undo ? "ring-u.db" : "ring-f.db", key: keys["OLD"]!, rows: 12000)
            let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
            try killed(db, at: Int.random(in: 3...5, using: &generator))
            var lines: [String] = []
            for index in 0..<Int.random(in: 1...4, using: &generator) {
                lines.append("wrong-\(index) env:W\(index)")
                environment["W\(index)"] = "not the key \(index)"
            }
            let missing = try writeFile(undo ? "wrong-u.ring" : "wrong-f.ring", lines.joined(separator: "\n") + "\n")
            lines.insert("old env:OLD", at: Int.random(in: 0...lines.count, using: &generator))
            let ring = try writeFile(undo ? "u.ring" : "f.ring", lines.joined(separator: "\n") + "\n")
            // Without a key, what the file is comes before the key it would need.
            let keyless = try cipherctl([["open", db], ["query", db, "SELECT 1"], ["dump", db]].randomElement(using: &generator)!)
            XCTAssertEqual(keyless.code, 1, keyless.stderr)
            XCTAssertTrue(keyless.stderr.contains("half-rotated"), keyless.stderr)
            // With the record beside it no key is tried: audit cannot say whose bytes they are.
            let audited = try cipherctl(["audit", db, "--key-env", "W0", "--json"], environment: environment)
            XCTAssertEqual(try jsonObject(String(audited.stdout.split(separator: "\n")[0]))["kind"] as? String, "encrypted", audited.stdout)
            // Keys the other way round are named so, and a ring of the new key alone still
            // shows the file half-rotated.
            let swapped = try cipherctl(["rekey", db, "--key-env", "NEW", "--new-key-env", "OLD", "--low-space"] + (undo ? ["--undo"] : []), environment: environment)
            XCTAssertEqual(swapped.code, 3, swapped.stderr)
            XCTAssertTrue(swapped.stderr.contains("the keys are the other way round"), swapped.stderr)
            let newOnly = try writeFile(undo ? "new-u.ring" : "new-f.ring", "new env:NEW\n")
            let looked = try cipherctl(["open", db, "--key-ring", newOnly], environment: environment)
            XCTAssertEqual(looked.code, 1, looked.stderr)
            XCTAssertTrue(looked.stderr.contains("half-rotated"), looked.stderr)
            let ringArguments = ["rekey", db, "--key-ring", missing, "--new-key-env", "NEW", "--low-space"] + (undo ? ["--undo"] : [])
            let refused = try cipherctl(ringArguments, environment: environment)
            XCTAssertEqual(refused.code, 3, "seed \(seed): \(refused.stderr)")
            let finished = try cipherctl(ringArguments.map { $0 == missing ? ring : $0 }, environment: environment)
            XCTAssertEqual(finished.code, 0, "seed \(seed) undo \(undo): \(finished.stderr)")
            XCTAssertTrue(finished.stderr.contains("'old'"), finished.stderr)
            XCTAssertEqual(try contentChecksum(db, keySQL: undo ? oldSQL : newSQL), before, "seed \(seed) undo \(undo)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: db + ".cipherctl-rotation"))
        }
    }
}
