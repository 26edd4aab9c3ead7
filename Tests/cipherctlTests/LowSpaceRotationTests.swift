import Foundation
import TestSupport
import XCTest

/// `rekey --low-space`: every page rewritten in place under a progress record, no second
/// copy; a fault at every write of the path leaves one key, or a half-rotated file that the
/// same command finishes and `--undo` rolls back.
final class LowSpaceRotationTests: CLITestCase {
    private let keys = ["OLD": "low space old key", "NEW": "low space new key"]
    private var oldSQL: String { "PRAGMA key = '\(keys["OLD"]!)';" }
    private var newSQL: String { "PRAGMA key = '\(keys["NEW"]!)';" }
    private func arguments(_ db: String) -> [String] { ["rekey", db, "--key-env", "OLD", "--new-key-env", "NEW", "--low-space"] }

    /// A database of about 1.5 MB: more than one 1 MB chunk.
    private func makeDatabase(_ name: String) throws -> (String, String) {
        let db = try makeShellDatabase(name, key: keys["OLD"]!, rows: 12000)
        return (db, try XCTUnwrap(contentChecksum(db, keySQL: oldSQL)))
    }

    private func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    func testLowSpaceRotationKeepsTheFileItselfAndTheShellOpensItWithTheNewKeyOnly() throws {
        let (db, before) = try makeDatabase("a.db")
        let inode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: db)[.systemFileNumber] as? Int)
        let result = try cipherctl(arguments(db) + ["--json"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try jsonObject(result.stdout)["action"] as? String, "low-space")
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
        XCTAssertNil(try contentChecksum(db, keySQL: oldSQL))
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA cipher_integrity_check; PRAGMA user_version;"), "ok\n12\n")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: db)[.systemFileNumber] as? Int, inode)
        XCTAssertEqual(try listing(), ["a.db"])
        let again = try cipherctl(arguments(db) + ["--json"], environment: keys)
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertEqual(try jsonObject(again.stdout)["action"] as? String, "already-done")
    }

    func testLowSpaceWithASettingsChangeAnotherWayOfWritingOrAPlaintextFileIsExit2AndChangesNothing() throws {
        let (db, before) = try makeDatabase("a.db")
        for extra in [["--new-page-size", "8192"], ["--new-hmac-algorithm", "SHA256"], ["--in-place"], ["--backup"], ["--dry-run"]] {
            let result = try cipherctl(arguments(db) + extra, environment: keys)
            XCTAssertEqual(result.code, 2, "\(extra): \(result.stderr)")
        }
        let undo = try cipherctl(["rekey", db, "--key-env", "OLD", "--new-key-env", "NEW", "--undo"], environment: keys)
        XCTAssertEqual(undo.code, 2, undo.stderr)
        let nothing = try cipherctl(arguments(db) + ["--undo"], environment: keys)
        XCTAssertEqual(nothing.code, 2, nothing.stderr)
        XCTAssertTrue(nothing.stderr.contains("no interrupted rotation"), nothing.stderr)
        XCTAssertEqual(try contentChecksum(db, keySQL: oldSQL), before)
        XCTAssertEqual(try listing(), ["a.db"])
        let plain = path("plain.db")
        XCTAssertEqual(try run("/usr/bin/env", ["sqlcipher", plain, "CREATE TABLE t(x);"], stdin: nil, environment: [:]).code, 0)
        let plaintext = try cipherctl(arguments(plain), environment: keys)
        XCTAssertEqual(plaintext.code, 2, plaintext.stderr)
        // Another name would not show the progress record of an interrupted run.
        try FileManager.default.linkItem(atPath: db, toPath: path("other.db"))
        let linked = try cipherctl(arguments(db), environment: keys)
        XCTAssertEqual(linked.code, 2, linked.stderr)
        XCTAssertEqual(try contentChecksum(db, keySQL: oldSQL), before)
    }

    /// Killed at its third database write (a chunk of pages under each key): open, query and
    /// a plain rekey name the file half-rotated (exit 1), audit finds it, with or without a
    /// key; a wrong key for either side is exit
    /// 3 and changes no byte; the same command finishes it.
    func testAHalfRotatedFileIsNamedByEveryOpenAndAWrongKeyForEitherSideChangesNothing() throws {
        try requireStrace()
        let (db, before) = try makeDatabase("a.db")
        let killed = try run("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null", "-e", "inject=pwrite64:signal=KILL:when=3", Self.binary] + arguments(db),
                             stdin: nil, environment: tracedEnvironment(keys))
        XCTAssertTrue(killed.signaled, killed.stderr)
        for command in [["open", db, "--key-env", "OLD"], ["query", db, "SELECT 1", "--key-env", "NEW"], ["rekey", db, "--key-env", "OLD", "--new-key-env", "NEW"]] {
            let result = try cipherctl(command, environment: keys)
            XCTAssertEqual(result.code, 1, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("is half-rotated") && result.stderr.contains("--low-space") && result.stderr.contains("--undo"), result.stderr)
        }
        for keyOption in [[], ["--key-env", "OLD"]] {
            let audit = try cipherctl(["audit", db, "--json"] + keyOption, environment: keys)
            XCTAssertEqual(audit.code, 8, audit.stderr)
            let codes = try (jsonObject(String(audit.stdout.split(separator: "\n")[0]))["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            XCTAssertEqual(codes, ["half-rotated"], audit.stdout)
        }
        // The record holds settings, page 1s and a chunk of ciphertext: never a key.
        let record = try Data(contentsOf: URL(fileURLWithPath: db + ".cipherctl-rotation"))
        for key in keys.values { XCTAssertNil(record.range(of: Data(key.utf8))) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        for wrong in [["OLD": "wrong", "NEW": keys["NEW"]!], ["OLD": keys["OLD"]!, "NEW": "wrong"]] {
            let result = try cipherctl(arguments(db), environment: wrong)
            XCTAssertEqual(result.code, 3, result.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), bytes)
        }
        let finished = try cipherctl(arguments(db), environment: keys)
        XCTAssertEqual(finished.code, 0, finished.stderr)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before)
        XCTAssertEqual(try listing(), ["a.db"])
    }

    /// Another connection open on the database (a rollback reader in its transaction, a WAL
    /// writer whose rows are still in the WAL): the rotation waits for SQLite's exclusive lock,
    /// then is busy (exit 6) with no page and no record written; once the other is gone, it
    /// rotates every row, the WAL's included.
    func testALowSpaceRotationIsBusyWithNothingWrittenWhileAnotherConnectionHoldsTheFile() throws {
        for wal in [false, true] {
            let db = try makeShellDatabase(wal ? "wal.db" : "rollback.db", key: keys["OLD"]!, rows: 3000, extraSQL: wal ? "PRAGMA journal_mode = WAL;" : "")
            let held = wal ? "PRAGMA wal_autocheckpoint = 0; INSERT INTO items(name) VALUES ('in the wal');" : "BEGIN; SELECT count(*) FROM items;"
            let (holder, input) = try startShellHolding(db, oldSQL + held)
            let busy = try cipherctl(arguments(db) + ["--busy-timeout", "300"], environment: keys)
            XCTAssertEqual(busy.code, 6, "wal \(wal): \(busy.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: db + ".cipherctl-rotation"), "wal \(wal)")
            input.fileHandleForWriting.closeFile()
            holder.waitUntilExit()
            let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
            let result = try cipherctl(arguments(db), environment: keys)
            XCTAssertEqual(result.code, 0, "wal \(wal): \(result.stderr)")
            XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), before, "wal \(wal)")
            XCTAssertEqual(try sqlcipherOK(db, newSQL + "SELECT count(*) FROM items WHERE name = 'in the wal'; PRAGMA journal_mode;"),
                           "ok\n\(wal ? 1 : 0)\n\(wal ? "wal" : "delete")\n", "wal \(wal)")
        }
    }

    /// A new salt and KDF count go with the key: killed half-way, the rerun must ask for the
    /// same ones (another count is exit 3, nothing written); it then leaves the file under the
    /// new key, salt and count only.
    func testALowSpaceRotationToANewSaltAndKDFCountIsFinishedOnlyWithTheSameOnes() throws {
        try requireStrace()
        let (db, before) = try makeDatabase("a.db")
        let salt = String(repeating: "5a", count: 16)
        let change = arguments(db) + ["--new-kdf-iter", "8000", "--new-salt=" + salt]
        let killed = try run("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null", "-e", "inject=pwrite64:signal=KILL:when=3", Self.binary] + change,
                             stdin: nil, environment: tracedEnvironment(keys))
        XCTAssertTrue(killed.signaled, killed.stderr)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        for other in [arguments(db) + ["--new-kdf-iter", "9000"], arguments(db) + ["--new-kdf-iter", "8000", "--new-salt=" + String(repeating: "6b", count: 16)]] {
            let result = try cipherctl(other, environment: keys)
            XCTAssertEqual(result.code, 3, result.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), bytes)
        }
        let finished = try cipherctl(change + ["--json"], environment: keys)
        XCTAssertEqual(finished.code, 0, finished.stderr)
        let settings = try XCTUnwrap(try jsonObject(finished.stdout)["new_settings"] as? [String: Any])
        XCTAssertEqual(settings["kdf_iter"] as? Int, 8000)
        XCTAssertEqual(settings["salt"] as? String, salt)
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL + " PRAGMA kdf_iter = 8000;"), before)
        XCTAssertNil(try contentChecksum(db, keySQL: newSQL))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16), Data(repeating: 0x5a, count: 16))
        XCTAssertEqual(try listing(), ["a.db"])
    }

    /// A rotation keeps the format the file was in, so a rerun over a rotated file of any
    /// SQLCipher version with page HMACs (2 to 4), given a new KDF count, finds it done under
    /// that version's format.
    func testARerunOverAFileRotatedToANewKDFCountIsDoneInEveryVersionsFormat() throws {
        for compat in 2...4 {
            let extra = "PRAGMA cipher_compatibility = \(compat);"
            let db = try makeShellDatabase("v\(compat).db", key: keys["OLD"]!, rows: 50, extraSQL: extra)
            let before = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL + extra))
            for run in 0..<2 {
                let result = try cipherctl(arguments(db) + ["--new-kdf-iter", "5000", "--json"], environment: keys)
                XCTAssertEqual(result.code, 0, "SQLCipher \(compat) run \(run): \(result.stderr)")
                XCTAssertEqual(try jsonObject(result.stdout)["action"] as? String, run == 0 ? "low-space" : "already-done", "SQLCipher \(compat) run \(run)")
            }
            XCTAssertEqual(try contentChecksum(db, keySQL: newSQL + extra + " PRAGMA kdf_iter = 5000;"), before, "SQLCipher \(compat)")
        }
    }

    /// A rerun without the KDF count the first run was given finds the file under the new key
    /// by the settings search and says it is done; it said "wrong key" (the known formats
    /// alone were tried). Keys neither of which opens the file are still a wrong key.
    func testARerunWithoutTheKDFCountAnEarlierRunWroteFindsItDone() throws {
        let (db, before) = try makeDatabase("kdf-rerun.db")
        XCTAssertEqual(try cipherctl(arguments(db) + ["--new-kdf-iter", "7000"], environment: keys).code, 0)
        let again = try cipherctl(arguments(db) + ["--json"], environment: keys)
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertEqual(try jsonObject(again.stdout)["action"] as? String, "already-done")
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL + " PRAGMA kdf_iter = 7000;"), before)
        let wrong = try cipherctl(["rekey", db, "--key-env", "W", "--new-key-env", "W2", "--low-space"], environment: ["W": "not it", "W2": "nor this"])
        XCTAssertEqual(wrong.code, 3, wrong.stderr)
    }
}
