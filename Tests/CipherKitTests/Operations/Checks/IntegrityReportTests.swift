import CCipherProvider
@testable import CipherKit
import Foundation
import XCTest

/// The check of `open --check`: the HMAC pass on every core, then SQLite's check reading the
/// pages the pass proved without computing their HMACs again.
final class IntegrityReportTests: CipherKitTestCase {
    private let rows = "CREATE TABLE t(x, y); CREATE INDEX t_x ON t(x); "
        + "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3000) INSERT INTO t SELECT n, randomblob(200) FROM c;"

    func testTrustingCheckedPagesSkipsOnlyTheHMACOfReadsOnTheThreadThatAsked() throws {
        let db = try makeEncryptedDatabase("a.db", key: "k", sql: rows)
        guard cipherprovider_active() == 1 else { throw XCTSkip("cipherctl's provider is not SQLCipher's here") }
        try spoilStoredHMACOfPage2(db)
        XCTAssertNil(rowsOfT(db), "the spoiled HMAC fails the read")
        cipherprovider_trust_checked_pages(1)
        defer { cipherprovider_trust_checked_pages(0) }
        XCTAssertEqual(rowsOfT(db), 3000, "trusted, the page decrypts: its ciphertext is whole")
        let other = OtherThreadCount()
        let thread = Thread { [db] in
            other.value = self.rowsOfT(db)
            other.done.signal()
        }
        thread.start()
        other.done.wait()
        XCTAssertNil(other.value, "another thread still checks every HMAC")
        cipherprovider_trust_checked_pages(0)
        XCTAssertNil(rowsOfT(db), "off again, the read fails again")
    }

    func testPagesWrittenWhileTrustingAreSealedWithTheirRealHMACs() throws {
        let db = try makeEncryptedDatabase("w.db", key: "k")
        guard cipherprovider_active() == 1 else { throw XCTSkip("cipherctl's provider is not SQLCipher's here") }
        cipherprovider_trust_checked_pages(1)
        let opened = try DatabaseOpener.open(OpenRequest(path: db, key: try passphrase("k"), mode: .readWrite))
        try opened.connection.execute(rows)
        try opened.connection.close()
        cipherprovider_trust_checked_pages(0)
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
