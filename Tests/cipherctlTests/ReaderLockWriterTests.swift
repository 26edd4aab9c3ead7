import Foundation
import XCTest

/// A look holds a reader's lock on a rollback-journal database for its whole run. A writer
/// that starts to commit then holds SQLite's PENDING lock and waits for that lock to go; the
/// look's own connection (and a second look at the same file in the process) must not wait
/// for PENDING in turn, or both wait on each other until one gives up: the look with exit 6
/// after twice its --busy-timeout, or the writer's commit with "database is locked".
final class ReaderLockWriterTests: CLITestCase {
    private let key = "reader lock key"
    /// A slow derivation keeps the look between its lock and its first read long enough to
    /// commit in between, once the lock shows in /proc/locks.
    private let iterations = 1_000_000

    func testALookWhileAWriterCommitsReadsTheStateBeforeAndTheCommitWaitsForIt() throws {
        let looks: [(String, [String])] = [
            ("query", ["query", "f.db", "SELECT v FROM t"]),
            ("dump", ["dump", "f.db"]),
            ("open --check", ["open", "f.db", "--check", "--counts"]),
            ("audit --check", ["audit", "f.db", "--check"]),
            ("diff with itself", ["diff", "f.db", "f.db", "--other-key-env", "K", "--other-kdf-iter", "\(iterations)", "--rows"]),
        ]
        for (name, arguments) in looks {
            let db = path("f.db")
            for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: db + suffix) }
            let keySQL = "PRAGMA key = '\(key)'; PRAGMA kdf_iter = \(iterations);"
            try sqlcipherOK(db, keySQL + "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('before');")
            let (writer, input) = try startShellHolding(db, keySQL + " PRAGMA busy_timeout = 20000; BEGIN IMMEDIATE; UPDATE t SET v = 'after';")
            let committed = DispatchSemaphore(value: 0)
            let inode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: db)[.systemFileNumber] as? UInt64)
            DispatchQueue.global().async {
                Self.waitForReaderLock(inode: inode)
                input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
                committed.signal()
            }
            let result = try cipherctl(arguments + ["--key-env", "K", "--kdf-iter", "\(iterations)", "--busy-timeout", "3000"], environment: ["K": key])
            committed.wait()
            try input.fileHandleForWriting.close()
            writer.waitUntilExit()
            XCTAssertEqual(result.code, 0, "\(name): \(result.stderr)")
            XCTAssertFalse(result.stdout.contains("after"), "\(name) reads the state before the commit: \(result.stdout)")
            XCTAssertEqual(try sqlcipherOK(db, keySQL + "SELECT v FROM t;"), "ok\nafter\n", "\(name): the writer's commit went through once the look ended")
        }
    }

    /// A WAL database diffed with itself while a writer commits between the two opens: each
    /// side reads the snapshot it took as it was opened (the same, or the commit's change),
    /// never an error. The first side's snapshot used to start only after the second open,
    /// past the commit, and its read failed with "disk I/O error" (exit 1).
    func testADiffOfAWALDatabaseWithItselfWhileAWriterCommitsReadsTwoSnapshots() throws {
        let db = path("w.db")
        let keySQL = "PRAGMA key = '\(key)'; PRAGMA kdf_iter = \(iterations);"
        try sqlcipherOK(db, keySQL + """
            PRAGMA journal_mode = WAL; CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500) INSERT INTO t SELECT x, 'row' || x FROM c;
            """)
        let (writer, input) = try startShellHolding(db, keySQL + " PRAGMA busy_timeout = 20000; BEGIN IMMEDIATE; UPDATE t SET v = 'changed' WHERE id = 1;")
        let inode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: db)[.systemFileNumber] as? UInt64)
        let committed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            // The second side's reader lock: the first side is open, the second not yet.
            Self.waitForReaderLock(inode: inode, count: 2)
            input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
            committed.signal()
        }
        let options = ["--key-env", "K", "--kdf-iter", "\(iterations)", "--other-key-env", "K", "--other-kdf-iter", "\(iterations)"]
        let result = try cipherctl(["diff", db, db] + options, environment: ["K": key])
        committed.wait()
        try input.fileHandleForWriting.close()
        writer.waitUntilExit()
        XCTAssertTrue([0, 8].contains(result.code), "exit \(result.code): \(result.stderr)")
        XCTAssertEqual(result.stderr.contains("error"), false, result.stderr)
    }

    /// Waits (up to 20 s) until /proc/locks shows `count` open-file-description locks on
    /// `inode`: the looks' reader locks.
    private static func waitForReaderLock(inode: UInt64, count: Int = 1) {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
            if locks.split(separator: "\n").filter({ $0.contains("OFDLCK") && $0.contains(":\(inode) ") }).count >= count { return }
            usleep(5_000)
        }
    }
}
