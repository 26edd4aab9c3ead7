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

    /// A source with every header field set, WAL mode, free pages and an index.
    private func makeRichSource() throws -> String {
        let source = path("rich.db")
        let connection = try Connection(path: source, mode: .create)
        try connection.key(try passphrase("k"))
        try connection.apply(CipherSettings(kdfIterations: 1000))
        try connection.execute("""
            PRAGMA auto_vacuum = INCREMENTAL;
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, payload BLOB);
            CREATE INDEX t_name ON t(name);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO t(name, payload) SELECT 'row ' || i, randomblob(100) FROM n;
            DELETE FROM t WHERE id > 1500;
            PRAGMA user_version = 41; PRAGMA application_id = 42;
            PRAGMA journal_mode = WAL;
            """)
        try connection.close()
        return source
    }

    private func facts(of path: String, key: String, settings: CipherSettings) throws -> [String] {
        let connection = try DatabaseOpener.open(OpenRequest(path: path, key: try passphrase(key), settings: settings)).connection
        return try ["user_version", "application_id", "auto_vacuum", "journal_mode", "freelist_count"].map { try connection.pragmaText($0) ?? "" }
            + [String(describing: try connection.scalar("SELECT group_concat(id || name || hex(payload)) FROM t"))]
    }

    func testKeyOnlyExportCopiesPagesWithTheHeaderWALAndFreePages() throws {
        let source = try makeRichSource()
        let before = try facts(of: source, key: "k", settings: CipherSettings(kdfIterations: 1000))
        XCTAssertNotEqual(before[4], "0", "the source has free pages")
        let report = try Exporter.export(ExportRequest(
            source: OpenRequest(path: source, key: try passphrase("k"), settings: CipherSettings(kdfIterations: 1000)), destinationPath: path("copy.db"),
            destinationKey: try passphrase("new"), destinationSettings: CipherSettings(kdfIterations: 2000)))
        XCTAssertEqual(report.method, .pageEngine)
        XCTAssertEqual(report.verification?.isOK, true)
        XCTAssertEqual(try facts(of: path("copy.db"), key: "new", settings: CipherSettings(kdfIterations: 2000)), before)
        XCTAssertThrowsError(try facts(of: path("copy.db"), key: "k", settings: CipherSettings(kdfIterations: 1000)))
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: path("copy.db"))).prefix(16),
                          try Data(contentsOf: URL(fileURLWithPath: source)).prefix(16), "the copy has a salt of its own")
    }

    func testExportThatChangesThePageSizeGoesThroughSQLCipherExportAndCompacts() throws {
        let source = try makeRichSource()
        let before = try facts(of: source, key: "k", settings: CipherSettings(kdfIterations: 1000))
        let report = try Exporter.export(ExportRequest(
            source: OpenRequest(path: source, key: try passphrase("k"), settings: CipherSettings(kdfIterations: 1000)), destinationPath: path("copy.db"),
            destinationKey: try passphrase("new"), destinationSettings: CipherSettings(pageSize: 8192, kdfIterations: 1000)))
        XCTAssertEqual(report.method, .sqlcipherExport)
        let after = try facts(of: path("copy.db"), key: "new", settings: CipherSettings(pageSize: 8192, kdfIterations: 1000))
        XCTAssertEqual(Array(after[0..<4]), Array(before[0..<4]), "header fields and WAL carried over")
        XCTAssertEqual(after[4], "0", "sqlcipher_export writes no free pages")
        XCTAssertEqual(after[5], before[5])
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
