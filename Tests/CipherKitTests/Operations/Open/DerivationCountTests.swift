import CCipherProvider
import CipherKit
import XCTest

/// An open derives a passphrase once, whatever the settings given and whatever lies beside
/// the file: the page-1 check beside a -wal and the connection share one derivation.
final class DerivationCountTests: CipherKitTestCase {
    private let givenSettings: [(String, CipherSettings)] = [
        ("searched", CipherSettings()), ("compat 4", CipherSettings(compatibility: 4)),
        ("kdf iter", CipherSettings(kdfIterations: 256_000)), ("page size", CipherSettings(pageSize: 4096)),
    ]

    func testAPassphraseIsDerivedOnceForEachOpenBesideAWALOrNot() throws {
        for withWAL in [false, true] {
            let target = try makeDatabase(withWAL ? "wal.db" : "plain.db", withWAL: withWAL)
            for (name, settings) in givenSettings {
                let before = cipherprovider_key_derivations()
                let opened = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), settings: settings))
                XCTAssertEqual(try opened.connection.scalar("SELECT count(*) FROM t"), .integer(2), "\(name), -wal \(withWAL)")
                try opened.connection.close()
                XCTAssertEqual(cipherprovider_key_derivations() - before, 1, "\(name), -wal \(withWAL)")
            }
        }
    }

    func testAWrongPassphraseWithSettingsGivenIsDerivedOnceAndLeavesTheWALAlone() throws {
        for withWAL in [false, true] {
            let target = try makeDatabase(withWAL ? "wal.db" : "plain.db", withWAL: withWAL)
            let wal = FileManager.default.contents(atPath: target + "-wal")
            for (name, settings) in givenSettings.dropFirst() {
                let before = cipherprovider_key_derivations()
                XCTAssertThrowsError(try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("not k"), settings: settings, mode: .readWrite)))
                XCTAssertEqual(cipherprovider_key_derivations() - before, 1, "\(name), -wal \(withWAL)")
                XCTAssertEqual(FileManager.default.contents(atPath: target + "-wal"), wal, "\(name), -wal \(withWAL)")
            }
        }
    }

    /// A database under key "k" holding two rows; with `withWAL`, the rows sit in committed
    /// frames of a -wal beside it, with no -shm, as a killed writer leaves them.
    private func makeDatabase(_ name: String, withWAL: Bool) throws -> String {
        let writing = path("writing-" + name)
        let connection = try Connection(path: writing, mode: .create)
        try connection.key(try passphrase("k"))
        if withWAL { try connection.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t(x)") }
        // A WAL database's file holds its schema; the rows stay in the -wal.
        if withWAL { try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        try connection.execute("\(withWAL ? "" : "CREATE TABLE t(x); ")INSERT INTO t VALUES (1), (2)")
        let target = path(name)
        try FileManager.default.copyItem(atPath: writing, toPath: target)
        if withWAL { try FileManager.default.copyItem(atPath: writing + "-wal", toPath: target + "-wal") }
        try connection.close()
        return target
    }
}
