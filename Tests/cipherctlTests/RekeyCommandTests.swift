import Foundation
import XCTest

final class RekeyCommandTests: CLITestCase {
    private let keys = ["OLD": "old key 1", "NEW": "new key 2", "OTHER": "other key 3"]
    private let oldSQL = "PRAGMA key = 'old key 1';"
    private let newSQL = "PRAGMA key = 'new key 2';"

    private func rekey(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        try cipherctl(["rekey"] + arguments + ["--key-env", "OLD", "--new-key-env", "NEW"], stdin: stdin, environment: keys)
    }

    func testInPlaceRekeyOpensInTheShellWithTheNewKeyOnlyAndKeepsEveryRow() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1")
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        let saltBefore = try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16)

        let result = try rekey([db, "--in-place"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("rekeyed '\(db)' in-place:"), result.stdout)
        XCTAssertTrue(result.stdout.contains("old key refused"), result.stdout)

        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
        XCTAssertNil(try contentChecksum(db, keySQL: oldSQL), "the old key must no longer open it")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16), saltBefore, "in-place rekey keeps the salt")
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA user_version; PRAGMA application_id;"), "ok\n12\n4242\n")
    }

    func testWALDatabaseStaysWALAndIsNotCopiedIntoTheWAL() throws {
        let db = try makeShellDatabase("wal.db", key: "old key 1", rows: 2000, extraSQL: "PRAGMA journal_mode = WAL;")
        let result = try rekey([db])
        XCTAssertEqual(result.code, 0, result.stderr)
        let walSize = (try? FileManager.default.attributesOfItem(atPath: db + "-wal")[.size] as? Int) ?? 0
        XCTAssertEqual(walSize ?? 0, 0, "the rekey must not leave the database's pages in the WAL")
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA journal_mode; SELECT count(*) FROM items;"), "ok\nwal\n2000\n")
    }

    /// What an in-place rekey killed in WAL mode leaves, forged with the shell (Scripts/faults
    /// kills real runs at every call): the database in WAL mode (with the new key when
    /// `committed`), and the mark of a process that is gone. Returns the database, its
    /// content checksum and the mark.
    private func interruptedRekey(_ name: String, committed: Bool) throws -> (db: String, checksum: String, mark: String) {
        let db = try makeShellDatabase(name, key: "old key 1", rows: 500)
        let checksum = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        try sqlcipherOK(db, oldSQL + "PRAGMA journal_mode = WAL;" + (committed ? " PRAGMA rekey = 'new key 2';" : ""))
        let exited = Process()
        exited.executableURL = URL(fileURLWithPath: "/bin/true")
        try exited.run()
        exited.waitUntilExit()
        let mark = db + ".cipherctl-tmp-\(exited.processIdentifier)-abc-was-rollback"
        XCTAssertTrue(FileManager.default.createFile(atPath: mark, contents: Data()))
        return (db, checksum, mark)
    }

    func testInPlaceRekeyLeavesARollbackJournalDatabaseInDeleteModeWithNoCompanionFiles() throws {
        let db = try makeShellDatabase("j.db", key: "old key 1", rows: 2000)
        let result = try rekey([db])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA journal_mode; SELECT count(*) FROM items;"), "ok\ndelete\n2000\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(names, ["j.db"], "no -wal, -shm, -journal or mark is left")
    }

    func testAMarkAndWALModeLikeAPreCommitKillsAreRedoneAndTheJournalModeRestored() throws {
        let (db, before, mark) = try interruptedRekey("pre.db", committed: false)

        let result = try rekey([db, "--json"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let report = try jsonObject(result.stdout)
        XCTAssertEqual(report["finished_interrupted"] as? Bool, false)
        XCTAssertEqual(report["removed_leftovers"] as? [String], [mark])
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA journal_mode;"), "ok\ndelete\n")
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mark))
    }

    func testAMarkAndTheNewKeyLikeAPostCommitKillsAreFinishedByTheSameCommand() throws {
        let (db, before, mark) = try interruptedRekey("post.db", committed: true)

        // Other commands leave the mark for the rekey.
        XCTAssertEqual(try cipherctl(["open", db, "--key-env", "NEW"], environment: keys).code, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: mark))

        let result = try rekey([db, "--json"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let report = try jsonObject(result.stdout)
        XCTAssertEqual(report["finished_interrupted"] as? Bool, true)
        XCTAssertEqual(report["removed_leftovers"] as? [String], [mark])
        XCTAssertEqual((report["verification"] as? [String: Any])?["ok"] as? Bool, true)
        XCTAssertEqual((report["verification"] as? [String: Any])?["old_key_rejected"] as? Bool, true)
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA journal_mode;"), "ok\ndelete\n")
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mark))

        let text = try rekey([db, "--json"])
        XCTAssertEqual(text.code, 0, "a rerun is already done: \(text.stderr)")
        XCTAssertTrue(text.stdout.contains("\"action\":\"already-done\""), text.stdout)
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA journal_mode;"), "ok\ndelete\n")
    }

    func testAutoVacuumAndHeaderFieldsSurviveBothPaths() throws {
        let db = try makeShellDatabase("av.db", key: "old key 1", extraSQL: "PRAGMA auto_vacuum = FULL;")
        XCTAssertEqual(try rekey([db]).code, 0)
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA auto_vacuum; PRAGMA user_version; PRAGMA application_id;"), "ok\n1\n12\n4242\n")
        let back = try cipherctl(["rekey", db, "--key-env", "NEW", "--new-key-env", "OLD", "--new-kdf-iter", "10000"], environment: keys)
        XCTAssertEqual(back.code, 0, back.stderr)
        XCTAssertTrue(back.stdout.contains("export-and-replace"), back.stdout)
        XCTAssertEqual(try sqlcipherOK(db, oldSQL + "PRAGMA kdf_iter = 10000; PRAGMA auto_vacuum; PRAGMA user_version; PRAGMA application_id;"), "ok\n1\n12\n4242\n")
    }

    func testSettingsChangeReplacesTheFileKeepingItsPermissions() throws {
        let db = try makeShellDatabase("s.db", key: "old key 1")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: db)
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        let result = try rekey([db, "--new-page-size", "8192", "--new-hmac-algorithm", "SHA256", "--json"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let report = try jsonObject(result.stdout)
        XCTAssertEqual(report["action"] as? String, "export-and-replace")
        XCTAssertEqual((report["new_settings"] as? [String: Any])?["page_size"] as? Int, 8192)
        XCTAssertEqual((report["verification"] as? [String: Any])?["ok"] as? Bool, true)
        XCTAssertEqual((report["verification"] as? [String: Any])?["old_key_rejected"] as? Bool, true)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: db)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o640)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL + "PRAGMA cipher_page_size = 8192; PRAGMA cipher_hmac_algorithm = HMAC_SHA256;"), before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("cipherctl-tmp") }
        XCTAssertEqual(leftovers, [])
    }

    func testSQLCipher3DatabaseMigratesToSQLCipher4Defaults() throws {
        let db = try makeShellDatabase("v3.db", key: "old key 1", extraSQL: "PRAGMA cipher_compatibility = 3;")
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL + "PRAGMA cipher_compatibility = 3;"))
        let result = try rekey([db, "--compat", "3", "--new-compat", "4"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA cipher_page_size; PRAGMA kdf_iter;"), "ok\n4096\n256000\n")
    }

    func testNewSaltGivesAFreshSalt() throws {
        let db = try makeShellDatabase("salt.db", key: "old key 1")
        let saltBefore = try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16)
        let result = try rekey([db, "--new-salt"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16), saltBefore)
        XCTAssertNotNil(try contentChecksum(db, keySQL: newSQL))
    }

    func testWrongCurrentKeyExits3AndLeavesTheFileAlone() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1")
        let before = try fingerprint(db)
        let result = try cipherctl(["rekey", db, "--key-env", "NEW", "--new-key-env", "OTHER"], environment: keys)
        XCTAssertEqual(result.code, 3)
        XCTAssertTrue(result.stderr.contains("cannot decrypt '\(db)'"), result.stderr)
        XCTAssertEqual(try fingerprint(db).0, before.0)
        XCTAssertFalse(result.allOutput.contains("old key 1") || result.allOutput.contains("new key 2"))
    }

    func testRefusesEmptyNewKeyPlaintextDatabaseAndSameKey() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1")
        let empty = try cipherctl(["rekey", db, "--key-env", "OLD", "--new-key-env", "E"], environment: keys.merging(["E": ""]) { $1 })
        XCTAssertEqual(empty.code, 2)
        XCTAssertTrue(empty.stderr.contains("the new key is empty"), empty.stderr)
        XCTAssertTrue(empty.stderr.contains("cipherctl export SRC DEST --plaintext"), empty.stderr)

        let same = try cipherctl(["rekey", db, "--key-env", "OLD", "--new-key-env", "OLD"], environment: keys)
        XCTAssertEqual(same.code, 2)
        XCTAssertTrue(same.stderr.contains("same as the current one"), same.stderr)

        let plain = path("plain.db")
        XCTAssertEqual(try run("/usr/bin/env", ["sqlcipher", plain, "CREATE TABLE t(x);"], stdin: nil, environment: [:]).code, 0)
        let refused = try rekey([plain])
        XCTAssertEqual(refused.code, 2)
        XCTAssertTrue(refused.stderr.contains("plaintext SQLite database"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("cipherctl export"), refused.stderr)
    }

    func testDryRunChangesNothing() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1")
        let before = try fingerprint(db)
        let result = try rekey([db, "--dry-run", "--new-page-size", "8192"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("dry run '\(db)': would rekey export-and-replace"), result.stdout)
        let after = try fingerprint(db)
        XCTAssertEqual(before.0, after.0)
        XCTAssertEqual(before.1, after.1)
        XCTAssertNotNil(try contentChecksum(db, keySQL: oldSQL))
    }

    func testBatchRotatesTheOthersWhenOneHasAWrongKey() throws {
        let good = try (1...3).map { try makeShellDatabase("good\($0).db", key: "old key 1", rows: 20) }
        let bad = try makeShellDatabase("bad.db", key: "some other key", rows: 20)
        let list = try writeFile("list.txt", ([good[0], bad] + good.dropFirst()).joined(separator: "\n") + "\n")
        let result = try rekey(["--from", list, "--jobs", "2", "--json"])
        XCTAssertEqual(result.code, 3)
        for db in good {
            XCTAssertNotNil(try contentChecksum(db, keySQL: newSQL), db)
        }
        XCTAssertNotNil(try contentChecksum(bad, keySQL: "PRAGMA key = 'some other key';"))
        let objects = try result.stdout.split(separator: "\n").map { try jsonObject(String($0)) }
        XCTAssertEqual(Set(objects.compactMap { $0["path"] as? String }), Set(good))
        let failure = try jsonObject(String(try XCTUnwrap(result.stderr.split(separator: "\n").first)))
        XCTAssertEqual(failure["path"] as? String, bad)
        XCTAssertEqual(failure["exit_code"] as? Int, 3)
    }

    func testFailFastStopsAfterTheFirstFailure() throws {
        let bad = try makeShellDatabase("bad.db", key: "some other key", rows: 5)
        let good = try makeShellDatabase("good.db", key: "old key 1", rows: 5)
        let result = try rekey([bad, good, "--fail-fast"])
        XCTAssertEqual(result.code, 3)
        XCTAssertNotNil(try contentChecksum(good, keySQL: oldSQL), "the second database must not be started")
    }

    func testBackupKeepsTheOriginalOpenableWithTheOldKey() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1")
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        let inPlace = try rekey([db, "--backup=\(path("a.before-rotation.db"))"])
        XCTAssertEqual(inPlace.code, 0, inPlace.stderr)
        XCTAssertEqual(try contentChecksum(path("a.before-rotation.db"), keySQL: oldSQL), before)

        let other = try makeShellDatabase("b.db", key: "old key 1")
        let replaced = try rekey([other, "--backup", "--new-kdf-iter", "5000"])
        XCTAssertEqual(replaced.code, 0, replaced.stderr)
        let backups = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("b.db.backup-") }
        XCTAssertEqual(backups.count, 1)
        XCTAssertNotNil(try contentChecksum(path(backups[0]), keySQL: oldSQL))
    }

    /// As limitations.md says: the backup is the checkpointed original, in rollback-journal mode.
    func testTheBackupOfAWALDatabaseHoldsItsRowsInRollbackJournalModeAndTheFileStaysWAL() throws {
        for inPlace in [true, false] {
            let db = try makeShellDatabase("wal-\(inPlace).db", key: "old key 1", rows: 50, extraSQL: "PRAGMA journal_mode = WAL;")
            let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
            let backup = db + ".kept"
            let result = try rekey([db, "--backup=\(backup)"] + (inPlace ? ["--in-place"] : ["--new-kdf-iter", "5000"]))
            XCTAssertEqual(result.code, 0, result.stderr)
            XCTAssertEqual(try contentChecksum(backup, keySQL: oldSQL), before, "in place: \(inPlace)")
            XCTAssertEqual(try sqlcipherOK(backup, oldSQL + "PRAGMA journal_mode;"), "ok\ndelete\n")
            let settings = inPlace ? "" : "PRAGMA kdf_iter = 5000;"
            XCTAssertEqual(try sqlcipherOK(db, newSQL + settings + "PRAGMA journal_mode;"), "ok\nwal\n")
            XCTAssertEqual(try contentChecksum(db, keySQL: newSQL + settings), before)
        }
    }

    func testInPlaceRekeyOfADatabaseHeldByAReaderExits6AndKeepsTheOldKey() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1", rows: 10)
        let (holder, input) = try startShellHolding(db, "PRAGMA key = 'old key 1';\nBEGIN;\nSELECT count(*) FROM items;\n")
        let result = try rekey([db, "--busy-timeout", "200", "--in-place"])
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        XCTAssertEqual(result.code, 6, result.stderr)
        XCTAssertNotNil(try contentChecksum(db, keySQL: oldSQL))
    }

    func testNoVerificationIsWarnedAboutInEitherSpelling() throws {
        for (name, spelling) in [("a.db", "--no-verify"), ("b.db", "--verify=none")] {
            let db = try makeShellDatabase(name, key: "old key 1", rows: 5)
            let result = try rekey([db, spelling])
            XCTAssertEqual(result.code, 0)
            XCTAssertTrue(result.stderr.contains("warning: --verify none"), result.stderr)
            XCTAssertTrue(result.stdout.contains("not verified"), result.stdout)
        }
    }

    func testLeftoverTemporaryFileOfADeadRunIsRemovedAndReported() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1", rows: 5)
        let leftover = try writeFile("a.db.cipherctl-tmp-999999999-abc", "half written")
        let result = try rekey([db])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover))
        XCTAssertTrue(result.stderr.contains("temporary file left by an interrupted run"), result.stderr)
    }

    func testLeftoverIsReportedEvenWhenTheRunThenFails() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1", rows: 5)
        let leftover = try writeFile("a.db.cipherctl-tmp-999999999-abc", "half written")
        let wrongKey = try cipherctl(["rekey", db, "--key-env", "NEW", "--new-key-env", "OTHER"], environment: keys)
        XCTAssertEqual(wrongKey.code, 3, wrongKey.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover))
        XCTAssertTrue(wrongKey.stderr.contains("removed '\(leftover)'"), wrongKey.stderr)

        let copy = try makeShellDatabase("copy.db", key: "old key 1", rows: 5)
        let besideCopy = try writeFile("copy.db.cipherctl-tmp-999999999-def", "half written")
        let exists = try cipherctl(["export", db, copy, "--key-env", "OLD", "--to-key-env", "NEW"], environment: keys)
        XCTAssertEqual(exists.code, 5, exists.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: besideCopy))
        XCTAssertTrue(exists.stderr.contains("removed '\(besideCopy)'"), exists.stderr)
    }

    func testRekeyKeepsRowsWhenKilledAtEightSpreadOutMoments() throws {
        for (name, extra) in [("inplace.db", [String]()), ("replace.db", ["--new-salt"])] {
            let db = try makeShellDatabase(name, key: "old key 1", rows: 30_000)
            let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
            let started = Date()
            XCTAssertEqual(try cipherctl(["rekey", db, "--key-env", "OLD", "--new-key-env", "NEW"] + extra, environment: keys).code, 0)
            let duration = Date().timeIntervalSince(started)
            XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
            // Back to the old key, then kill runs at spread-out moments.
            XCTAssertEqual(try cipherctl(["rekey", db, "--key-env", "NEW", "--new-key-env", "OLD"] + extra, environment: keys).code, 0)
            for fraction in [0.0, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.05] {
                let outcome = try killedRun(db, arguments: extra, after: duration * fraction)
                let withOld = try contentChecksum(db, keySQL: oldSQL)
                let withNew = try contentChecksum(db, keySQL: newSQL)
                XCTAssertTrue((withOld == before) != (withNew == before), "\(name) killed at \(fraction): opens with exactly one key and keeps its rows (\(outcome))")
                if withNew == before {
                    XCTAssertEqual(try cipherctl(["rekey", db, "--key-env", "NEW", "--new-key-env", "OLD"] + extra, environment: keys).code, 0)
                }
            }
        }
    }

    /// Starts a rekey from OLD to NEW and kills it with SIGKILL after `delay` seconds.
    private func killedRun(_ db: String, arguments: [String], after delay: TimeInterval) throws -> String {
        try cipherctlKilled(["rekey", db, "--key-env", "OLD", "--new-key-env", "NEW"] + arguments, environment: keys, after: delay)
    }

    func testNewKeyIsAskedTwiceOnATerminalAndMustMatch() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1", rows: 5)
        let mismatch = try cipherctlOnTerminal(["rekey", db], answers: [
            ("Key for '", "old key 1"), ("New key for '", "new key 2"), ("Repeat it: ", "new key 3"),
        ])
        XCTAssertEqual(mismatch.code, 2, mismatch.screen)
        XCTAssertTrue(mismatch.screen.contains("the two keys typed do not match"), mismatch.screen)
        XCTAssertNotNil(try contentChecksum(db, keySQL: oldSQL))

        let typed = try cipherctlOnTerminal(["rekey", db], answers: [
            ("Key for '", "old key 1"), ("New key for '", "new key 2"), ("Repeat it: ", "new key 2"),
        ])
        XCTAssertEqual(typed.code, 0, typed.screen)
        XCTAssertFalse(typed.screen.contains("old key 1") || typed.screen.contains("new key 2"), "no key is echoed")
        XCTAssertNotNil(try contentChecksum(db, keySQL: newSQL))
    }

    func testHotJournalIsReadAsRolledBackByOpenAndRolledBackOnDiskByTheNextRekey() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1", rows: 3000)
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        try leaveHotJournal(db, key: "old key 1")
        XCTAssertTrue(FileManager.default.fileExists(atPath: db + "-journal"), "the killed writer leaves a hot journal")
        let files = try fingerprint(db).0, journal = try fingerprint(db + "-journal").0

        let opened = try cipherctl(["open", db, "--key-env", "OLD", "--counts", "--json"], environment: keys)
        XCTAssertEqual(opened.code, 0, opened.stderr)
        let profile = try jsonObject(opened.stdout)
        XCTAssertEqual(profile["hot_journal"] as? Bool, true)
        XCTAssertEqual((profile["row_counts"] as? [String: Int])?["items"], 3000, "the interrupted update is rolled back, in memory")
        XCTAssertEqual(try fingerprint(db).0, files, "open never writes, not even a rollback")
        XCTAssertEqual(try fingerprint(db + "-journal").0, journal)

        let result = try rekey([db])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before, "the interrupted update is rolled back, every row kept")
    }

    func testPlaintextHeaderDatabaseRekeysOnThePageEngineKeepingHeaderAndSalt() throws {
        let salt = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
        let header = "PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(salt)'\";"
        let db = try makeShellDatabase("ph.db", key: "old key 1", rows: 100, extraSQL: header)
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL + header))
        let result = try rekey([db, "--plaintext-header-size", "32", "--salt", salt])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("(page-engine)"), result.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16), Data("SQLite format 3\u{0}".utf8))
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL + header), before)
        XCTAssertNil(try contentChecksum(db, keySQL: oldSQL + header))
    }

    func testSQLCipher3DatabaseRekeysOnThePageEngineAndStaysSQLCipher3() throws {
        let v3 = "PRAGMA cipher_compatibility = 3;"
        let db = try makeShellDatabase("v3.db", key: "old key 1", rows: 100, extraSQL: v3)
        let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL + v3))
        let result = try rekey([db, "--compat", "3"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("(page-engine)"), result.stdout)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL + v3), before)
    }

    func testADryRunWithAGeneratedKeyWritesNoKeyFile() throws {
        let db = try makeShellDatabase("a.db", key: "old key 1", rows: 5)
        let before = try fingerprint(db).0
        let result = try cipherctl(["rekey", db, "--dry-run", "--key-env", "OLD", "--new-key-generate", path("new.key")], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("new.key")), "a dry run wrote the key file")
        XCTAssertEqual(try fingerprint(db).0, before)
    }
}
