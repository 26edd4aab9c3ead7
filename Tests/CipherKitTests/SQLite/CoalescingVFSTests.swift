import CCoalescingVFS
import CipherKit
import Foundation
import XCTest

/// The VFS of an in-place rekey's connection gathers page-sized reads and writes into large
/// ones. Whatever it buffers, the connection must read back what it wrote, a commit must be on
/// disk for any other connection, and a write that fails when the buffer is written must fail
/// the transaction and leave what was committed before.
final class CoalescingVFSTests: CipherKitTestCase {
    private var vfs: String {
        get throws { try XCTUnwrap(coalescingvfs_register().map { String(cString: $0) }) }
    }

    /// A connection through the VFS, keyed, in exclusive locking mode and WAL, with a page cache
    /// of 20 pages so a large transaction spills pages to the WAL and reads them back.
    private func exclusiveWALConnection(_ path: String, mode: OpenMode) throws -> Connection {
        let connection = try Connection(path: path, mode: mode, vfs: try vfs)
        try connection.key(try passphrase("coalesced"))
        try connection.execute("PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = 20")
        XCTAssertEqual(try connection.pragmaText("journal_mode = WAL"), "wal")
        return connection
    }

    private func sumAndCount(_ connection: Connection) throws -> [DatabaseValue] {
        try connection.rows("SELECT count(*), sum(length(payload)), sum(id * 7) FROM t").first ?? []
    }

    func testConnectionReadsBackWhatItWroteAndAnotherConnectionSeesTheCommit() throws {
        let target = path("a.db")
        let connection = try exclusiveWALConnection(target, mode: .create)
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB)")
        try connection.execute("BEGIN")
        try connection.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO t(id, payload) SELECT i, randomblob(700 + i % 300) FROM n
            """)
        // Inside the transaction: pages spilled to the WAL (some still in the write buffer) are read back.
        let inside = try sumAndCount(connection)
        XCTAssertEqual(inside.first, .integer(3000))
        XCTAssertEqual(try connection.pragmaText("integrity_check"), "ok")
        try connection.execute("COMMIT")
        try connection.execute("UPDATE t SET payload = zeroblob(10) WHERE id % 3 = 0")
        let committed = try sumAndCount(connection)
        XCTAssertEqual(try connection.rows("PRAGMA wal_checkpoint(TRUNCATE)").first?.first, .integer(0))
        XCTAssertEqual(try connection.pragmaText("journal_mode = DELETE"), "delete")
        try connection.close()

        let plain = try Connection(path: target, mode: .readOnly)
        try plain.key(try passphrase("coalesced"))
        XCTAssertEqual(try sumAndCount(plain), committed)
        XCTAssertEqual(try plain.pragmaText("integrity_check"), "ok")
        XCTAssertEqual(try plain.pragmaText("journal_mode"), "delete")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target + "-wal"))
    }

    func testWriteThatFailsWhenTheBufferIsWrittenFailsTheTransactionAndKeepsTheCommittedRows() throws {
        let target = path("b.db")
        let setup = try exclusiveWALConnection(target, mode: .create)
        try setup.execute("""
            CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
            INSERT INTO t(id, payload) SELECT i, randomblob(500) FROM n;
            """)
        XCTAssertEqual(try setup.pragmaText("journal_mode = DELETE"), "delete")
        try setup.close()
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: target)[.size] as? Int)

        // A file-size limit a little above the database: the WAL of a 4 MB insert passes it
        // part-way, in the middle of buffered frames. SIGXFSZ would end the test process.
        let previousHandler = signal(SIGXFSZ, SIG_IGN)
        var previous = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &previous), 0)
        var limited = previous
        limited.rlim_cur = rlim_t(size + 300 * 1024)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limited), 0)
        let connection = try exclusiveWALConnection(target, mode: .readWrite)
        XCTAssertThrowsError(try connection.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
            INSERT INTO t(id, payload) SELECT 1000 + i, randomblob(1000) FROM n
            """))
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &previous), 0)
        signal(SIGXFSZ, previousHandler)
        XCTAssertEqual(try connection.scalar("SELECT count(*) FROM t"), .integer(200))
        try? connection.close()

        let plain = try Connection(path: target, mode: .readWrite)
        try plain.key(try passphrase("coalesced"))
        XCTAssertEqual(try plain.scalar("SELECT count(*) FROM t"), .integer(200))
        XCTAssertEqual(try plain.pragmaText("integrity_check"), "ok")
    }

    /// In normal locking mode the connection never holds the database EXCLUSIVE between
    /// statements: each commit is in the WAL for another connection at once.
    func testConnectionInNormalLockingModeSharesEachCommitAtOnce() throws {
        let target = path("c.db")
        let writer = try Connection(path: target, mode: .create, vfs: try vfs)
        try writer.key(try passphrase("coalesced"))
        XCTAssertEqual(try writer.pragmaText("journal_mode = WAL"), "wal")
        try writer.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB)")
        let reader = try Connection(path: target, mode: .readOnly)
        try reader.key(try passphrase("coalesced"))
        for round in 1...5 {
            try writer.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
                INSERT INTO t(payload) SELECT randomblob(900) FROM n
                """)
            XCTAssertEqual(try reader.scalar("SELECT count(*) FROM t"), .integer(Int64(round * 200)), "round \(round)")
        }
        XCTAssertEqual(try reader.pragmaText("integrity_check"), "ok")
    }
}
