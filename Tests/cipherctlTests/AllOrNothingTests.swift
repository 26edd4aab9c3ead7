import Foundation
import XCTest

/// Everything that can be refused is refused before the first change, and every hint leads
/// somewhere: option values in both forms, whole batches checked first, standard input
/// claimed twice, backups in the same second, an export's source never written.
final class AllOrNothingTests: CLITestCase {
    private let keys = ["K": "all or nothing key", "K2": "all or nothing new key"]

    func testNewSaltAndBackupTakeTheirValueAsTheNextArgument() throws {
        let db = try makeShellDatabase("a.db", key: keys["K"]!, rows: 20)
        let salt = "00112233445566778899aabbccddeeff"
        let result = try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "K2", "--new-salt=" + salt, "--backup=" + path("kept.db")], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16), Data(Hex.bytes(salt)))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("kept.db")), "the backup is where --backup PATH said")
    }

    func testABatchWithAMissingDatabaseChangesNone() throws {
        let db = try makeShellDatabase("a.db", key: keys["K"]!, rows: 20)
        let before = try fingerprint(db).0
        let result = try cipherctl(["rekey", db, path("missing.db"), "--key-env", "K", "--new-key-env", "K2"], environment: keys)
        XCTAssertEqual(result.code, 5, result.stderr)
        XCTAssertTrue(result.stderr.contains("missing.db"), result.stderr)
        XCTAssertEqual(try fingerprint(db).0, before, "the first database is untouched")
    }

    func testStandardInputCannotCarryBothTheKeyAndTheSQL() throws {
        let db = try makeShellDatabase("a.db", key: keys["K"]!, rows: 5)
        let query = try cipherctl(["query", db, "--key-stdin", "-"], stdin: "\(keys["K"]!)\nSELECT 1;\n")
        XCTAssertEqual(query.code, 2, query.stderr)
        XCTAssertTrue(query.stderr.contains("standard input cannot carry both the key (--key-stdin) and the SQL"), query.stderr)
        let list = try cipherctl(["rekey", "--from", "-", "--key-stdin", "--new-key-env", "K2"], stdin: db + "\n", environment: keys)
        XCTAssertEqual(list.code, 2, list.stderr)
        XCTAssertTrue(list.stderr.contains("standard input"), list.stderr)
    }

    func testTwoBackupsInOneSecondBothSucceed() throws {
        let db = try makeShellDatabase("a.db", key: keys["K"]!, rows: 5)
        XCTAssertEqual(try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "K2", "--backup"], environment: keys).code, 0)
        let second = try cipherctl(["rekey", db, "--key-env", "K2", "--new-key-env", "K", "--backup"], environment: keys)
        XCTAssertEqual(second.code, 0, second.stderr)
        let backups = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".backup-") }
        XCTAssertEqual(backups.count, 2, "\(backups)")
    }

    func testExportNeverRollsBackItsSourcesHotJournal() throws {
        let db = try makeShellDatabase("a.db", key: keys["K"]!, rows: 3000)
        try leaveHotJournal(db, key: keys["K"]!)
        let before = try fingerprint(db).0, journal = try fingerprint(db + "-journal").0
        let result = try cipherctl(["export", db, path("copy.db"), "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("hot journal"), result.stderr)
        XCTAssertEqual(try fingerprint(db).0, before, "the source is not written")
        XCTAssertEqual(try fingerprint(db + "-journal").0, journal, "its journal is kept")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("copy.db")))
    }

    func testDryRunOnAWALDatabaseHeldOpenEndsAsTheRealRunDoes() throws {
        let db = try makeShellDatabase("wal.db", key: keys["K"]!, rows: 50, extraSQL: "PRAGMA journal_mode = WAL;")
        let (holder, input) = try startShellHolding(db, "PRAGMA key = '\(keys["K"]!)'; SELECT count(*) FROM items;")
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        let before = try fingerprint(db).0
        let arguments = ["rekey", db, "--key-env", "K", "--new-key-env", "K2", "--busy-timeout", "300"]
        let dry = try cipherctl(arguments + ["--dry-run"], environment: keys)
        let real = try cipherctl(arguments, environment: keys)
        XCTAssertEqual(real.code, 6, real.stderr)
        XCTAssertEqual(dry.code, real.code, "dry run: \(dry.stderr)")
        XCTAssertEqual(try fingerprint(db).0, before)
    }

    func testHintsNameTheOptionsThatHelpAndJSONErrorsNameThePath() throws {
        let db = try makeShellDatabase("a.db", key: keys["K"]!, rows: 5)
        XCTAssertTrue(FileManager.default.createFile(atPath: path("exists.db"), contents: Data("x".utf8)))
        let exists = try cipherctl(["export", db, path("exists.db"), "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(exists.code, 5)
        XCTAssertTrue(exists.stderr.contains("--force"), exists.stderr)
        let noKey = try cipherctl(["export", db, path("copy.db"), "--key-env", "K"], environment: keys)
        XCTAssertEqual(noKey.code, 2)
        XCTAssertTrue(noKey.stderr.contains("--plaintext"), noKey.stderr)
        let json = try cipherctl(["open", db, "--key-env", "K2", "--json"], environment: keys)
        XCTAssertEqual(json.code, 3)
        let error = try jsonObject(json.stderr)
        XCTAssertEqual(error["path"] as? String, db)
        XCTAssertEqual(error["committed"] as? Bool, false)
        let v3 = try makeShellDatabase("v3.db", key: keys["K"]!, rows: 5, extraSQL: "PRAGMA cipher_compatibility = 3;")
        let hint = try cipherctl(["open", v3, "--key-env", "K"], environment: keys)
        XCTAssertTrue(hint.stderr.contains("--new-key-env"), hint.stderr)
    }
}

private enum Hex {
    static func bytes(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }
}
