import Foundation
import TestSupport
import XCTest

/// Another database's -wal or hot journal beside an encrypted file (a copy gone wrong, a
/// restore of the wrong companion): every command stops with exit 4 naming page 1, before any
/// connection, and every file stays as it was. A connection used to read the other database
/// through the -wal (or roll its journal back) and write it over the file: `rekey` then
/// reported the other database's rows as rotated, or as already done under the new key.
/// The other database's key (the same as the file's, or the new one) and format (SQLCipher
/// 3 or 4) are drawn from a printed seed (CIPHERCTL_FOREIGN_SEED).
final class ForeignCompanionTests: CLITestCase {
    private let keys = ["K": "foreign companion key", "N": "foreign companion new key"]

    private var commands: [[String]] {
        [["open", "a.db"], ["open", "a.db", "--check"], ["query", "a.db", "--format", "value", "SELECT count(*) FROM a"], ["dump", "a.db"],
         ["export", "a.db", "out.db", "--to-key-env", "N"], ["rekey", "a.db", "--new-key-env", "N"], ["rekey", "a.db", "--new-key-env", "N", "--dry-run"],
         ["rekey", "a.db", "--new-key-env", "N", "--in-place"], ["rekey", "a.db", "--new-key-env", "N", "--low-space"],
         ["query", "a.db", "--write", "INSERT INTO a VALUES (0)"], ["plaintext-header", "a.db", "--size", "32", "--salt-output", "a.salt"]]
    }

    func testAnotherDatabasesWALOrHotJournalIsExit4AndEveryFileStaysAsItWas() throws {
        var (generator, seed) = SeededGenerator.forSweep("foreign companions", variable: "CIPHERCTL_FOREIGN_SEED")
        for companion in ["-wal", "-journal"] {
            for otherKey in ["K", "N"] {
                let compatibility = Bool.random(using: &generator) ? 3 : 4
                let folder = try makeCase(companion: companion, otherKey: otherKey, compatibility: compatibility)
                for command in commands {
                    let label = "seed \(seed): \(companion) of a SQLCipher \(compatibility) database under \(otherKey): \(command.joined(separator: " "))"
                    let before = try folderListing(folder)
                    let result = try run(Self.binary, command + ["--key-env", "K"], stdin: nil, environment: keys, directory: folder)
                    XCTAssertEqual(result.code, 4, "\(label): \(result.stdout) \(result.stderr)")
                    XCTAssertTrue(result.stderr.contains("another database's"), "\(label): \(result.stderr)")
                    XCTAssertEqual(result.stderr.components(separatedBy: "error:").count - 1, 1, "\(label): one error line")
                    XCTAssertEqual(try folderListing(folder), before, "\(label): every file as it was")
                }
            }
        }
    }

    /// `recover` proves its key on the file's own pages: another database's -wal, none of
    /// whose frames the key reads, is set aside and said so, and every row of the file is
    /// salvaged (its commit made the file as small as the other database, every page lost).
    func testRecoverBesideAnotherDatabasesWALSetsItAsideAndSalvagesEveryRow() throws {
        for otherKey in ["K", "N"] {
            let folder = try makeCase(companion: "-wal", otherKey: otherKey, compatibility: 4)
            let before = try folderListing(folder)
            let result = try run(
                Self.binary, ["recover", "a.db", "saved.db", "--key-env", "K", "--to-key-env", "N", "--json"], stdin: nil, environment: keys, directory: folder)
            XCTAssertEqual(result.code, 0, "\(otherKey): \(result.stderr)")
            let report = try jsonObject(result.stdout)
            XCTAssertEqual(report["wal_set_aside"] as? Bool, true, "\(otherKey): \(result.stdout)")
            XCTAssertEqual(report["lost_pages"] as? [Int], [], "\(otherKey): \(result.stdout)")
            let rows = try sqlcipherOK(folder + "/saved.db", "PRAGMA key = '\(keys["N"]!)';\nSELECT count(*), sum(x) FROM a;")
            XCTAssertEqual(rows.split(separator: "\n").last, "500|125250", "\(otherKey): every row of the file")
            XCTAssertEqual(try folderListing(folder).filter { $0.key != "saved.db" }, before, "\(otherKey): the source and its -wal as they were")
        }
    }

    /// A folder with a.db (SQLCipher 4, table a, in WAL mode for a -wal) and beside it
    /// `companion` from another database, written under `otherKey` in SQLCipher
    /// `compatibility`'s format by a writer killed with it in place. The other writer's -wal
    /// holds its page 1 (a schema change), whose salt tells it apart; one without page 1 is
    /// not told before a connection (docs/limitations.md).
    private func makeCase(companion: String, otherKey: String, compatibility: Int) throws -> String {
        let folder = path("case\(companion)\(otherKey)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let mode = companion == "-wal" ? "PRAGMA journal_mode = WAL;\n" : ""
        try sqlcipherOK(folder + "/a.db", "PRAGMA key = '\(keys["K"]!)';\n" + mode + "CREATE TABLE a(x); INSERT INTO a SELECT value FROM generate_series(1, 500);")
        let other = folder + "/b.db"
        let keySQL = "PRAGMA key = '\(keys[otherKey]!)';\nPRAGMA cipher_compatibility = \(compatibility);\n"
        try sqlcipherOK(other, keySQL + "CREATE TABLE b(y); INSERT INTO b SELECT randomblob(200) FROM generate_series(1, 300);")
        let writer = companion == "-wal"
            ? keySQL + "PRAGMA journal_mode = WAL;\nPRAGMA wal_autocheckpoint = 0;\nCREATE TABLE c(z);\nUPDATE b SET y = randomblob(100);\n.shell kill -9 $PPID\n"
            : keySQL + "PRAGMA cache_size = 2;\nBEGIN;\nUPDATE b SET y = randomblob(300);\n.shell kill -9 $PPID\n"
        _ = try run("/usr/bin/env", ["sqlcipher", other], stdin: writer, environment: Self.childEnvironment(home: directory.path))
        let left = (try? FileManager.default.attributesOfItem(atPath: other + companion)[.size] as? Int) ?? 0
        XCTAssertGreaterThan(left ?? 0, 1024, "the killed writer left its \(companion)")
        try FileManager.default.moveItem(atPath: other + companion, toPath: folder + "/a.db" + companion)
        for leftover in ["", "-shm", "-wal", "-journal"] { try? FileManager.default.removeItem(atPath: other + leftover) }
        return folder
    }
}
