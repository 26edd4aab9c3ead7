import Foundation
import XCTest

/// The right key opens a database of every SQLCipher format beside what a killed writer left
/// (its -wal in WAL mode, its hot journal in rollback mode), found by the format search or
/// under the format given, and reads the rows the shell reads from a copy. The check made
/// before any connection there (page 1 under the settings a connection would take) must
/// pass every format's page 1, those without HMACs too: it turned SQLCipher 1's away.
final class KilledWriterFormatTests: CLITestCase {
    private let key = "killed writer format key"

    func testTheRightKeyReadsEveryFormatBesideAKilledWritersWALOrHotJournal() throws {
        for compatibility in 1...4 {
            for companion in ["-wal", "-journal"] {
                let db = path("v\(compatibility)\(companion).db")
                let keySQL = "PRAGMA key = '\(key)';\nPRAGMA cipher_compatibility = \(compatibility);\n"
                try sqlcipherOK(db, keySQL + (companion == "-wal" ? "PRAGMA journal_mode = WAL;\n" : "")
                    + "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB);\nINSERT INTO t(v) SELECT randomblob(200) FROM generate_series(1, 300);")
                let writer = companion == "-wal"
                    ? keySQL + "PRAGMA wal_autocheckpoint = 0;\nDELETE FROM t WHERE id % 3 = 0;\n.shell kill -9 $PPID\n"
                    : keySQL + "PRAGMA cache_size = 2;\nBEGIN;\nDELETE FROM t WHERE id % 3 = 0;\nUPDATE t SET v = randomblob(300);\n.shell kill -9 $PPID\n"
                _ = try run("/usr/bin/env", ["sqlcipher", db], stdin: writer, environment: Self.childEnvironment(home: directory.path))
                try? FileManager.default.removeItem(atPath: db + "-shm")
                XCTAssertTrue(FileManager.default.fileExists(atPath: db + companion), "v\(compatibility): the writer left its \(companion)")
                // The shell reads a copy: it rolls the journal back, or replays the -wal.
                let copy = path("copy-v\(compatibility)\(companion).db")
                for suffix in ["", companion] { try FileManager.default.copyItem(atPath: db + suffix, toPath: copy + suffix) }
                let expected = try sqlcipherOK(copy, keySQL + "SELECT count(*) FROM t;").split(separator: "\n").last.map(String.init)
                for given in [[], ["--compat", "\(compatibility)"]] {
                    let label = "SQLCipher \(compatibility) beside its \(companion), \(given)"
                    let result = try cipherctl(["query", db, "--key-env", "K", "--format", "value", "SELECT count(*) FROM t"] + given, environment: ["K": key])
                    XCTAssertEqual(result.code, 0, "\(label): \(result.stderr)")
                    XCTAssertEqual(result.stdout.trimmingCharacters(in: .newlines), expected, label)
                }
            }
        }
    }
}
