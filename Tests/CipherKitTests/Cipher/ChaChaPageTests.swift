import CCipherProvider
@testable import CipherKit
import Foundation
import XCTest

/// A page's ChaCha20 block counter starts at a random 32-bit value; one that overflows inside
/// the page must go on as SQLite3 Multiple Ciphers' does. Pages written by ChaChaPage.c with a
/// nonce chosen to place the overflow must read back in SQLite3 Multiple Ciphers itself (the
/// pinned apsw-sqlite3mc wheel in .build-interop). (A 32-bit wrap that leaves the nonce alone
/// fails here: page 2 reads as malformed.)
final class ChaChaPageTests: CipherKitTestCase {
    private let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build-interop/bin/python").path
    private let rawKey = [UInt8](repeating: 0x5c, count: 32)

    /// Runs SQLite3 Multiple Ciphers on `database` (ChaCha20, the raw key) with `statements`; returns the last one's rows.
    private func multipleCiphers(_ database: String, _ statements: [String]) throws -> (Int32, String) {
        let hex = rawKey.map { String(format: "%02x", $0) }.joined()
        let program = """
            import sys, apsw
            c = apsw.Connection(sys.argv[1])
            for s in ["PRAGMA cipher = 'chacha20'", "PRAGMA key = \\"x'\(hex)'\\""] + sys.argv[2:]: rows = list(c.execute(s))
            print(rows)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", program, database] + statements
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Re-encrypts page `pgno` of `file` with a nonce whose block counter (its last four bytes
    /// XOR the page number) is `counter`.
    private func placeCounter(_ counter: UInt32, page pgno: UInt32, of file: inout [UInt8]) {
        let pageSize = 4096
        var nonce = [UInt8](repeating: 0xA7, count: 16)
        let stored = counter ^ pgno
        for i in 0..<4 { nonce[12 + i] = UInt8(truncatingIfNeeded: stored >> (8 * UInt32(i))) }
        let salt = Array(file[0..<16])
        let range = (Int(pgno) - 1) * pageSize..<Int(pgno) * pageSize
        var plain = [UInt8](repeating: 0, count: pageSize), bad: [UInt8] = [0]
        var written = [UInt8](repeating: 0, count: pageSize)
        rawKey.withUnsafeBufferPointer { key in
            salt.withUnsafeBufferPointer { salt in
                nonce.withUnsafeBufferPointer { nonce in
                    var codec = chachapage_codec(key: key.baseAddress, salt: salt.baseAddress, page_size: Int32(pageSize), skip: 24, nonce: nonce.baseAddress)
                    let page = Array(file[range])
                    XCTAssertEqual(chachapage_decrypt_run(&codec, page, pgno, 1, &plain, &bad), 0, "page \(pgno) reads before")
                    XCTAssertEqual(chachapage_encrypt_run(&codec, plain, pgno, 1, &written), 1)
                }
            }
        }
        file.replaceSubrange(range, with: written)
    }

    func testPagesWhoseBlockCounterWrapsReadBackInSQLite3MultipleCiphers() throws {
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("run Scripts/bootstrap --test-tools (apsw-sqlite3mc)") }
        let database = path("wrap.db")
        let made = try multipleCiphers(database, [
            "CREATE TABLE t(x)", "INSERT INTO t VALUES (randomblob(3000))", "INSERT INTO t VALUES (randomblob(3000))", "SELECT count(*) FROM t",
        ])
        XCTAssertEqual(made.0, 0, made.1)
        var file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: database)))
        XCTAssertGreaterThanOrEqual(file.count, 3 * 4096)
        // Page 1: the one-time keys at the last block, the page from block 0. Page 2: the
        // overflow after 20 of its blocks. Page 3: after 62.
        placeCounter(UInt32.max, page: 1, of: &file)
        placeCounter(UInt32.max - 20, page: 2, of: &file)
        placeCounter(UInt32.max - 62, page: 3, of: &file)
        try Data(file).write(to: URL(fileURLWithPath: database))
        let read = try multipleCiphers(database, ["PRAGMA integrity_check"])
        XCTAssertEqual(read.0, 0, read.1)
        XCTAssertEqual(read.1, "[('ok',)]\n")
    }
}
