import CCipherProvider
@testable import CipherKit
import Foundation
import XCTest

/// The per-page trust of a check that runs while the HMAC pass runs: only the pages the map
/// marks skip their HMAC, and only on the thread that asked.
final class ProvenPageMapTests: CipherKitTestCase {
    private let rows = "CREATE TABLE t(x, y); "
        + "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3000) INSERT INTO t SELECT n, randomblob(200) FROM c;"

    func testOnlyTheMarkedPagesSkipTheirHMACAndOnlyOnTheThreadThatAsked() throws {
        let db = try makeEncryptedDatabase("a.db", key: "k", sql: rows)
        guard cipherprovider_active() == 1 else { throw XCTSkip("cipherctl's provider is not SQLCipher's here") }
        let opened = try openReadOnly(db)
        let pages = Int(try XCTUnwrap(opened.connection.pragmaInteger("page_count")))
        let map = ProvenPageMap(pages: pages, codec: try XCTUnwrap(PageCodec(for: opened)))
        try opened.connection.close()
        try spoilStoredHMACOfPage2(db)
        map.mark(first: 1, count: pages, except: [2])
        map.trustOnThisThread()
        defer { ProvenPageMap.stopTrusting() }
        XCTAssertNil(rowsOfT(db), "page 2 is not marked: its spoiled HMAC fails the read")
        map.mark(first: 2, count: 1, except: [])
        XCTAssertEqual(rowsOfT(db), 3000, "marked, the page decrypts: its ciphertext is whole")
        let other = ProvenPageCount()
        Thread { [db] in
            other.value = self.rowsOfT(db)
            other.done.signal()
        }.start()
        other.done.wait()
        XCTAssertNil(other.value, "another thread still checks every HMAC")
        ProvenPageMap.stopTrusting()
        XCTAssertNil(rowsOfT(db), "off again, the read fails again")
    }

    func testADamagedPageIsFoundWhileSQLitesCheckRunsBesideThePass() throws {
        let db = try makeEncryptedDatabase("d.db", key: "k", sql: rows + "CREATE TABLE u(a); CREATE INDEX u_a ON u(a); CREATE INDEX t_x ON t(x);")
        try spoilStoredHMACOfPage2(db)
        for _ in 0..<5 {
            let report = try IntegrityReport.run(on: try openReadOnly(db))
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
