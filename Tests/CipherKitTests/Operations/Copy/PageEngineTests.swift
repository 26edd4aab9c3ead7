import CCipherProvider
@testable import CipherKit
import XCTest

/// The page engine on files SQLCipher wrote: its copies open in SQLCipher with the new key
/// whatever the thread count, a damaged source page is named before anything is written
/// over it, and a cancelled run stops. Run under ThreadSanitizer by `Scripts/sanitize thread`.
final class PageEngineTests: CipherKitTestCase {
    private let settings = CipherSettings(kdfIterations: 1000)

    private func makeSource(rows: Int = 4000, settings: CipherSettings? = nil, named name: String = "s.db") throws -> String {
        try makeEncryptedDatabase(name, key: "k", settings: settings ?? self.settings, sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO t(v) SELECT randomblob(200) FROM n;
            """)
    }

    private func codecs(for source: String, salt: [UInt8], settings: CipherSettings? = nil) throws -> (PageCodec, PageCodec) {
        let settings = settings ?? self.settings
        let file = try Data(contentsOf: URL(fileURLWithPath: source))
        let from = try PageCodec(key: try passphrase("k"), salt: Array(file.prefix(16)), settings: settings)
        let to = try PageCodec(key: try passphrase("new"), salt: salt, settings: settings)
        return (from, to)
    }

    /// A reader of `path`'s main file through an open connection (kept alive by the caller).
    private func reader(_ path: String, settings: CipherSettings? = nil) throws -> (Connection, DatabaseFileAccess) {
        let request = OpenRequest(path: path, key: try passphrase("k"), settings: settings ?? self.settings, mode: .readOnly)
        let connection = try DatabaseOpener.open(request).connection
        return (connection, try XCTUnwrap(DatabaseFileAccess(connection)))
    }

    private func sum(of path: String, key: String, settings: CipherSettings) throws -> Int64? {
        let connection = try DatabaseOpener.open(OpenRequest(path: path, key: try passphrase(key), settings: settings, mode: .readOnly)).connection
        defer { try? connection.close() }
        return try connection.scalar("SELECT sum(length(v)) + count(*) FROM t")?.integerValue
    }

    /// Each thread count, with each combination of the HMAC and AES lanes (on, off, and the
    /// two halves an AVX-512 CPU without VAES runs).
    func testEveryThreadCountAndLaneCombinationWritesACopySQLCipherOpensWithTheNewKey() throws {
        let source = try makeSource()
        let expected = try sum(of: source, key: "k", settings: settings)
        let salt = KeyDerivation.randomSalt()
        defer { _ = cipherpage_use_lanes(1) }
        for threads in [1, 2, 3, 8] {
            for (hmacLanes, aesLanes): (Int32, Int32) in [(1, 1), (1, 0), (0, 1), (0, 0)] {
                _ = cipherpage_use_hmac_lanes(hmacLanes)
                _ = cipherpage_use_aes_lanes(aesLanes)
                let target = try copy(source, threads: threads, salt: salt, named: "copy\(threads)-\(hmacLanes)\(aesLanes).db")
                let label = "\(threads) threads, lanes hmac \(hmacLanes) aes \(aesLanes)"
                XCTAssertEqual(FileOperations.size(of: target), FileOperations.size(of: source), label)
                XCTAssertEqual(try sum(of: target, key: "new", settings: settings), expected, label)
            }
        }
    }

    /// The engine's copy of `source` to the new key, with `threads` threads.
    private func copy(_ source: String, threads: Int, salt: [UInt8], named name: String, settings: CipherSettings? = nil) throws -> String {
        let target = path(name)
        try FileOperations.createExclusive(target)
        let (from, to) = try codecs(for: source, salt: salt, settings: settings)
        let (connection, input) = try reader(source, settings: settings)
        defer { try? connection.close() }
        let pages = (FileOperations.size(of: source) ?? 0) / ((settings ?? self.settings).pageSize ?? 4096)
        try XCTUnwrap(PageEngine(source: from, target: to, threads: threads)).convert(source, reading: input, pages: pages, into: target, token: CancellationToken())
        return target
    }

    /// Chunks of whole 4 KiB blocks are written around the page cache, and the last chunk of a
    /// file of 1 KiB pages whose count is not a multiple of four through it: both halves land.
    func testAFileOfSmallPagesEndingInPartOfABlockIsCopiedWhole() throws {
        var small = settings
        small.pageSize = 1024
        var source = "", pages = 0
        for rows in 6000..<6100 where pages % 4 == 0 {
            source = try makeSource(rows: rows, settings: small, named: "small\(rows).db")
            pages = (FileOperations.size(of: source) ?? 0) / 1024
        }
        XCTAssert(pages % 4 != 0 && pages * 1024 > PageEngine.chunkBytes, "\(pages) pages")
        let expected = try sum(of: source, key: "k", settings: small)
        let target = try copy(source, threads: 2, salt: KeyDerivation.randomSalt(), named: "small-copy.db", settings: small)
        XCTAssertEqual(FileOperations.size(of: target), pages * 1024)
        XCTAssertEqual(try sum(of: target, key: "new", settings: small), expected)
    }

    func testADamagedSourcePageIsNamedAndThePagesBeforeItAreAllThatWasWritten() throws {
        let source = try makeSource()
        let pages = (FileOperations.size(of: source) ?? 0) / 4096
        let damaged = pages / 2
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: source))
        try handle.seek(toOffset: UInt64((damaged - 1) * 4096 + 100))
        handle.write(Data([0x5a]))
        try handle.close()
        let target = path("copy.db")
        try FileOperations.createExclusive(target)
        let (from, to) = try codecs(for: source, salt: KeyDerivation.randomSalt())
        let (connection, input) = try reader(source)
        defer { try? connection.close() }
        XCTAssertThrowsError(try XCTUnwrap(PageEngine(source: from, target: to, threads: 2)).convert(source, reading: input, pages: pages, into: target, token: CancellationToken())) { error in
            guard case PageEngine.Failure.damagedSource(let found) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(found, [damaged])
        }
    }

    /// Closing any descriptor of a file drops every POSIX lock the process holds on it; the
    /// engine reads through SQLite's own file, so a lock held during the copy stays held.
    func testTheLockAConnectionHoldsOnTheSourceOutlastsTheEngine() throws {
        let source = try makeSource(rows: 500)
        let holder = try DatabaseOpener.open(OpenRequest(path: source, key: try passphrase("k"), settings: settings)).connection
        defer { try? holder.close() }
        let (connection, input) = try reader(source)
        defer { try? connection.close() }
        let target = path("copy.db")
        try FileOperations.createExclusive(target)
        let (from, to) = try codecs(for: source, salt: KeyDerivation.randomSalt())
        let pages = (FileOperations.size(of: source) ?? 0) / 4096
        // From here on nothing in this process may open and close the source on its own.
        try holder.execute("BEGIN IMMEDIATE")
        try XCTUnwrap(PageEngine(source: from, target: to, threads: 2)).convert(source, reading: input, pages: pages, into: target, token: CancellationToken())
        // Another process must still find the database locked for writing.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        shell.arguments = ["sqlcipher", "-batch", source]
        let input2 = Pipe(), errors = Pipe()
        shell.standardInput = input2
        shell.standardOutput = Pipe()
        shell.standardError = errors
        try shell.run()
        input2.fileHandleForWriting.write(Data("PRAGMA key = 'k'; PRAGMA kdf_iter = 1000; PRAGMA busy_timeout = 0; BEGIN IMMEDIATE; COMMIT;\n".utf8))
        try input2.fileHandleForWriting.close()
        shell.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(said.contains("locked"), "another process could take the write lock: \(said)")
        try holder.execute("ROLLBACK")
    }

    func testACancelledRunStopsWithCancelled() throws {
        let source = try makeSource()
        let target = path("copy.db")
        try FileOperations.createExclusive(target)
        let token = CancellationToken()
        token.cancel()
        let (from, to) = try codecs(for: source, salt: KeyDerivation.randomSalt())
        let (connection, input) = try reader(source)
        defer { try? connection.close() }
        XCTAssertThrowsError(try XCTUnwrap(PageEngine(source: from, target: to, threads: 2)).convert(source, reading: input, pages: 100, into: target, token: token)) { error in
            guard case CipherKitError.cancelled = error else { return XCTFail("\(error)") }
        }
    }

    func testAPageEncryptedByTheCodecDecryptsBackAndAnotherIVChangesItsBytes() throws {
        let source = try makeSource(rows: 10)
        let (from, to) = try codecs(for: source, salt: KeyDerivation.randomSalt())
        let raw = Array(try Data(contentsOf: URL(fileURLWithPath: source)).prefix(4096 * 2).suffix(4096))
        let plain = try XCTUnwrap(from.decrypt(raw, pgno: 2))
        let once = try XCTUnwrap(to.encrypt(plain, pgno: 2)), twice = try XCTUnwrap(to.encrypt(plain, pgno: 2))
        XCTAssertNotEqual(once, twice, "a fresh IV each time")
        XCTAssertEqual(to.decrypt(once, pgno: 2).map { Array($0.prefix(4096 - from.reserve)) }, Array(plain.prefix(4096 - from.reserve)))
        XCTAssertEqual(try once.withUnsafeBytes { try to.damagedPages(in: $0, first: 2, count: 1) }, [])
        XCTAssertEqual(try once.withUnsafeBytes { try to.damagedPages(in: $0, first: 3, count: 1) }, [3], "the HMAC covers the page number")
    }
}
