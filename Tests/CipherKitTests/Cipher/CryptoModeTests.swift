import CCipherProvider
@testable import CipherKit
import XCTest

/// FIPS mode runs none of cipherctl's own crypto code: every operation that has an own path
/// (a passphrase's derivation, a wrong key's tries and search, the page engine's export and
/// rekey with their lanes, an in-place rekey, a rotation in constant space, recover's
/// decrypted image, the integrity check's page scan, a raw key's page-1 test, a batch's keys
/// derived ahead) runs in both modes, and each own entry point counts its runs
/// (`cipherprovider_own_crypto_runs`). In standard mode the count must grow, step by step, so
/// the test cannot pass on a path that never ran; in FIPS mode it must not move, and the
/// results must be the same.
final class CryptoModeTests: CipherKitTestCase {
    override func tearDownWithError() throws {
        CryptoMode.select(.standard)
        try super.tearDownWithError()
    }

    func testFIPSModeRunsNoOwnCryptoCodeWhereStandardModeRunsItInEveryStep() throws {
        for mode in CryptoMode.allCases {
            CryptoMode.select(mode)
            for (step, run) in steps(mode) {
                let before = cipherprovider_own_crypto_runs()
                try run()
                let ran = cipherprovider_own_crypto_runs() - before
                if mode == .fips {
                    XCTAssertEqual(ran, 0, "FIPS mode ran own crypto code in: \(step)")
                } else {
                    XCTAssertGreaterThan(ran, 0, "standard mode ran no own crypto code in: \(step), so FIPS mode proves nothing there")
                }
            }
        }
    }

    /// Every step, named; each checks its own result in both modes.
    private func steps(_ mode: CryptoMode) -> [(String, () throws -> Void)] {
        let source = path("source-\(mode).db")
        return [
            ("a new database", { try self.makeSource(source) }),
            ("an open with a passphrase", { try self.assertRows(source, key: "old") }),
            ("a wrong key", { try self.assertWrongKey(source) }),
            ("an export to a new key (page engine)", { try self.exportAndCheck(source, to: self.path("export-\(mode).db")) }),
            ("a rekey by copy (page engine)", { try self.rekeyAndCheck(source, from: "old", to: "new", inPlace: false) }),
            ("a rekey in place (SQLCipher's pager)", { try self.rekeyAndCheck(source, from: "new", to: "newer", inPlace: true) }),
            ("an integrity check with its page scan", { try self.checkIntegrity(source, key: "newer") }),
            ("a rotation in constant extra space (page engine in place)", { try self.rekeyAndCheck(source, from: "newer", to: "newest", lowSpace: true) }),
            ("recover's decrypted image (page engine)", { try self.decryptImage(source, key: "newest") }),
            ("a raw key's derivation", { try self.deriveRawKey(source, key: "newest") }),
            ("keys derived ahead for a batch (SHA-512 lanes)", { try self.deriveAhead(source, key: "newest") }),
            ("a wrong key beside a -wal (page-1 tests)", { try self.wrongKeyBesideAWAL(self.path("wal-\(mode).db")) }),
        ]
    }

    /// Derived in the lanes in standard mode (where the CPU has them), not at all in FIPS mode;
    /// the open after it finds the key either way.
    private func deriveAhead(_ database: String, key: String) throws {
        defer { KeyDerivation.forgetPrepared() }
        let salt = Array(try DatabaseFile.probe(database).firstBytes.prefix(16))
        let derived = KeyDerivation.prepare([KeyDerivation.Expected(key: try passphrase(key), salt: salt, settings: CipherSettings())], threads: 1)
        XCTAssertEqual(derived, CryptoMode.current == .fips ? 0 : Int(cipherpage_sha512x8_available()))
        try assertRows(database, key: key)
    }

    private func makeSource(_ source: String) throws {
        try makeEncryptedDatabase((source as NSString).lastPathComponent, key: "old", sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t(v) SELECT randomblob(300) FROM n;
            """)
    }

    private func assertRows(_ database: String, key: String) throws {
        let opened = try DatabaseOpener.open(OpenRequest(path: database, key: try passphrase(key), mode: .readOnly))
        defer { try? opened.connection.close() }
        XCTAssertEqual(try opened.connection.scalar("SELECT count(*) FROM t")?.integerValue, 3000)
    }

    private func assertWrongKey(_ database: String) throws {
        XCTAssertThrowsError(try DatabaseOpener.open(OpenRequest(path: database, key: try passphrase("wrong"), mode: .readOnly))) { error in
            XCTAssertEqual((error as? CipherKitFailure)?.reason, .noFormatMatched)
        }
    }

    private func exportAndCheck(_ source: String, to destination: String) throws {
        var request = ExportRequest(source: OpenRequest(path: source, key: try passphrase("old")), destinationPath: destination, destinationKey: try passphrase("copy"))
        request.fullVerification = true
        _ = try Exporter.export(request)
        try assertRows(destination, key: "copy")
    }

    private func rekeyAndCheck(_ database: String, from old: String, to new: String, inPlace: Bool = false, lowSpace: Bool = false) throws {
        var request = RekeyRequest(database: OpenRequest(path: database, key: try passphrase(old)), newKey: try passphrase(new))
        request.inPlace = inPlace
        request.lowSpace = lowSpace
        _ = try Rekeyer.rekey(request)
        try assertRows(database, key: new)
    }

    private func checkIntegrity(_ database: String, key: String) throws {
        let opened = try DatabaseOpener.open(OpenRequest(path: database, key: try passphrase(key), mode: .readOnly))
        defer { try? opened.connection.close() }
        XCTAssertTrue(try IntegrityReport.run(on: opened).problems.isEmpty)
    }

    /// What `recover` hands SQLite's recovery: every page decrypted, none lost.
    private func decryptImage(_ database: String, key: String) throws {
        let opened = try DatabaseOpener.open(OpenRequest(path: database, key: try passphrase(key), mode: .readOnly))
        defer { try? opened.connection.close() }
        let codec = try XCTUnwrap(try PageCodec(for: opened))
        let image = try PlaintextImage.make(from: try PageSource(path: database, pageSize: codec.pageSize), codec: codec)
        defer { image.close() }
        XCTAssertTrue(image.lostPages.isEmpty)
        XCTAssertGreaterThan(image.pages, 1)
    }

    /// A WAL database whose writer still holds its -wal (frames not checkpointed): each known
    /// format's key is tested on page 1 before any connection.
    private func wrongKeyBesideAWAL(_ database: String) throws {
        let writer = try Connection(path: database, mode: .create)
        defer { try? writer.close() }
        try writer.key(try passphrase("old"))
        try writer.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t(v); INSERT INTO t VALUES (randomblob(5000));")
        XCTAssertGreaterThan(FileOperations.size(of: database + "-wal") ?? 0, 0)
        try assertWrongKey(database)
    }

    /// The raw key derived here opens the file, and passes the page-1 test a raw key's settings
    /// search runs.
    private func deriveRawKey(_ database: String, key: String) throws {
        let page1 = Array(try Data(contentsOf: URL(fileURLWithPath: database)).prefix(4096))
        let raw = try KeyDerivation.rawKey(for: try passphrase(key), salt: Array(page1.prefix(16)), settings: CipherSettings())
        XCTAssertNotNil(try SettingsSearch.search(raw, page1: page1))
        let opened = try DatabaseOpener.open(OpenRequest(path: database, key: raw, mode: .readOnly))
        try opened.connection.close()
    }
}
