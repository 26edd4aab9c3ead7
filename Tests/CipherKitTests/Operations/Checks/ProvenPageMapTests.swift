import CCipherProvider
@testable import CipherKit
import Foundation
import XCTest

/// The per-page trust of a check that runs while the HMAC pass runs: only the pages the map
/// marks skip their HMAC, and only on the thread that asked.
final class ProvenPageMapTests: CipherKitTestCase {
    private let rows = "CREATE TABLE t(x, y); "
        + "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3000) INSERT INTO t SELECT n, randomblob(200) FROM c;"

    private func open(_ path: String) throws -> OpenedDatabase {
        try DatabaseOpener.open(OpenRequest(path: path, key: try passphrase("k"), mode: .readOnly))
    }

    /// Overwrites the first byte of page 2's stored HMAC (after its 16-byte IV), leaving its ciphertext whole.
    private func spoilStoredHMAC(_ path: String) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(4096 + 4096 - 80 + 16))
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: UInt64(4096 + 4096 - 80 + 16))
        handle.write(Data([byte ^ 0xff]))
    }

    /// The rows of t, read from the table itself (page 2 is its root); nil when a read fails.
    private func count(_ path: String) -> Int64? {
        guard let opened = try? open(path) else { return nil }
        defer { try? opened.connection.close() }
        return try? opened.connection.scalar("SELECT count(y) FROM t NOT INDEXED")?.integerValue
    }

    func testOnlyTheMarkedPagesSkipTheirHMACAndOnlyOnTheThreadThatAsked() throws {
        let db = try makeEncryptedDatabase("a.db", key: "k", sql: rows)
        guard cipherprovider_active() == 1 else { throw XCTSkip("cipherctl's provider is not SQLCipher's here") }
        let opened = try open(db)
        let pages = Int(try XCTUnwrap(opened.connection.pragmaInteger("page_count")))
        let map = ProvenPageMap(pages: pages, codec: try XCTUnwrap(PageCodec(for: opened)))
        try opened.connection.close()
        try spoilStoredHMAC(db)
        map.mark(first: 1, count: pages, except: [2])
        map.trustOnThisThread()
        defer { ProvenPageMap.stopTrusting() }
        XCTAssertNil(count(db), "page 2 is not marked: its spoiled HMAC fails the read")
        map.mark(first: 2, count: 1, except: [])
        XCTAssertEqual(count(db), 3000, "marked, the page decrypts: its ciphertext is whole")
        let other = ProvenPageCount()
        Thread { [db] in
            other.value = self.count(db)
            other.done.signal()
        }.start()
        other.done.wait()
        XCTAssertNil(other.value, "another thread still checks every HMAC")
        ProvenPageMap.stopTrusting()
        XCTAssertNil(count(db), "off again, the read fails again")
    }

    func testADamagedPageIsFoundWhileSQLitesCheckRunsBesideThePass() throws {
        let db = try makeEncryptedDatabase("d.db", key: "k", sql: rows + "CREATE TABLE u(a); CREATE INDEX u_a ON u(a); CREATE INDEX t_x ON t(x);")
        try spoilStoredHMAC(db)
        for _ in 0..<5 {
            let report = try IntegrityReport.run(on: try open(db))
            XCTAssertEqual(report.failedPages, [2])
            XCTAssertEqual(report.sqliteProblems, [])
        }
    }
}

/// What the other thread counted, and when it is done.
private final class ProvenPageCount: @unchecked Sendable {
    var value: Int64?
    let done = DispatchSemaphore(value: 0)
}
