import CipherKit
import XCTest

final class ExporterTests: CipherKitTestCase {
    func testExportCarriesHeaderFieldsAndVerifies() throws {
        let source = try makeEncryptedDatabase("s.db", key: "k", sql: """
            CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3);
            PRAGMA user_version = 8; PRAGMA application_id = 9;
            """)
        let report = try Exporter.export(ExportRequest(
            source: OpenRequest(path: source, key: try passphrase("k")), destinationPath: path("d.db"),
            destinationKey: try passphrase("t"), destinationSettings: CipherSettings(compatibility: 3)))
        XCTAssertEqual(report.verification?.isOK, true)
        XCTAssertEqual(report.destinationSettings?.pageSize, 1024)
        let profile = try DatabaseInspector.inspect(OpenRequest(path: path("d.db"), key: try passphrase("t"), settings: CipherSettings(compatibility: 3)), options: InspectOptions(countRows: true))
        XCTAssertEqual(profile.userVersion, 8)
        XCTAssertEqual(profile.applicationID, 9)
        XCTAssertEqual(profile.rowCounts, [TableRowCount(table: "t", rows: 3)])
    }

    func testCancelledExportLeavesNoFile() throws {
        let source = try makeEncryptedDatabase("s.db", key: "k", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let token = CancellationToken()
        token.cancel()
        XCTAssertThrowsError(try Exporter.export(ExportRequest(
            source: OpenRequest(path: source, key: try passphrase("k")), destinationPath: path("d.db"), destinationKey: try passphrase("t")), token: token))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["s.db"])
    }

    func testOverridingKeepsGivenFieldsOverTheBase() {
        let base = CipherSettings(compatibility: 4, pageSize: 4096, kdfIterations: 256_000)
        let merged = CipherSettings(pageSize: 8192).overriding(base)
        XCTAssertEqual(merged, CipherSettings(compatibility: 4, pageSize: 8192, kdfIterations: 256_000))
    }
}
