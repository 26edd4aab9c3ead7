import CCipherProvider
@testable import CipherKit
import Foundation
import XCTest

/// The check of `open --check`: the HMAC pass on every core, then SQLite's check reading the
/// pages the pass proved without computing their HMACs again.
final class IntegrityReportTests: CipherKitTestCase {
    private let rows = "CREATE TABLE t(x, y); CREATE INDEX t_x ON t(x); "
        + "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3000) INSERT INTO t SELECT n, randomblob(200) FROM c;"

    /// Every page of `path` marked proven, for the calling thread to trust.
    private func everyPageProven(_ path: String) throws -> ProvenPageMap {
        let opened = try openReadOnly(path)
        defer { try? opened.connection.close() }
        let pages = Int(try XCTUnwrap(opened.connection.pragmaInteger("page_count")))
        let map = ProvenPageMap(pages: pages, codec: try XCTUnwrap(PageCodec(for: opened)))
        map.mark(first: 1, count: pages, except: [])
        return map
    }

    func testTrustingProvenPagesSkipsOnlyTheHMACOfReadsOnTheThreadThatAsked() throws {
        let db = try makeEncryptedDatabase("a.db", key: "k", sql: rows)
        guard cipherprovider_active() == 1 else { throw XCTSkip("cipherctl's provider is not SQLCipher's here") }
        let proven = try everyPageProven(db)
        try spoilStoredHMACOfPage2(db)
        XCTAssertNil(rowsOfT(db), "the spoiled HMAC fails the read")
        proven.trustOnThisThread()
        defer { ProvenPageMap.stopTrusting() }
        XCTAssertEqual(rowsOfT(db), 3000, "trusted, the page decrypts: its ciphertext is whole")
        let other = OtherThreadCount()
        let thread = Thread { [db] in
            other.value = self.rowsOfT(db)
            other.done.signal()
        }
        thread.start()
        other.done.wait()
        XCTAssertNil(other.value, "another thread still checks every HMAC")
        ProvenPageMap.stopTrusting()
        XCTAssertNil(rowsOfT(db), "off again, the read fails again")
    }

    func testPagesWrittenWhileTrustingAreSealedWithTheirRealHMACs() throws {
        let db = try makeEncryptedDatabase("w.db", key: "k", sql: "CREATE TABLE seed(x)")
        guard cipherprovider_active() == 1 else { throw XCTSkip("cipherctl's provider is not SQLCipher's here") }
        // A map far larger than the file: every page the writes make is marked too.
        let opened = try DatabaseOpener.open(OpenRequest(path: db, key: try passphrase("k"), mode: .readWrite))
        let proven = ProvenPageMap(pages: 10_000, codec: try XCTUnwrap(PageCodec(for: opened)))
        proven.mark(first: 1, count: 10_000, except: [])
        proven.trustOnThisThread()
        try opened.connection.execute(rows)
        try opened.connection.close()
        ProvenPageMap.stopTrusting()
        let scan = try XCTUnwrap(PageScan.run(on: try openReadOnly(db)))
        XCTAssertTrue(scan.isOK, "\(scan.damaged)")
        XCTAssertGreaterThan(scan.pages, 100)
    }

    func testSQLitesOwnProblemsAreFoundBehindPagesThatAllPassTheirHMACsInEitherJournalMode() throws {
        for journal in ["delete", "wal"] {
            let db = try makeEncryptedDatabase("\(journal).db", key: "k", sql: "PRAGMA journal_mode = \(journal); " + rows)
            // The index now claims another column than the one its entries hold.
            let writer = try DatabaseOpener.open(OpenRequest(path: db, key: try passphrase("k"), mode: .readWrite)).connection
            try writer.execute("PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE INDEX t_x ON t(y)' WHERE name = 't_x';")
            try writer.close()
            let report = try IntegrityReport.run(on: try openReadOnly(db))
            XCTAssertEqual(report.cipherProblems, [], journal)
            XCTAssertTrue(report.sqliteProblems.contains { $0.contains("missing from index t_x") }, "\(journal): \(report.sqliteProblems.prefix(2))")
        }
    }

    func testADamagedPageIsReportedByThePassBeforeSQLitesCheck() throws {
        let db = try makeEncryptedDatabase("d.db", key: "k", sql: rows)
        try spoilStoredHMACOfPage2(db)
        let report = try IntegrityReport.run(on: try openReadOnly(db))
        XCTAssertEqual(report.failedPages, [2])
        XCTAssertEqual(report.sqliteProblems, [])
    }
}

/// What the other thread counted, and when it is done.
private final class OtherThreadCount: @unchecked Sendable {
    var value: Int64?
    let done = DispatchSemaphore(value: 0)
}
