import Foundation

/// Writes a copy of a database into a new file with other keys or settings, and checks a
/// written copy: the one mechanism behind export, a rekey that changes settings, and the
/// plaintext-header move's verification.
///
/// The source is opened read-write (SQLCipher's export needs it) and only ever read; every
/// page is checked before the copy starts. A change of key, salt or KDF that keeps the page
/// size and reserved bytes is copied page by page (`copyPages`); any other change, and
/// encrypting or decrypting, goes through `sqlcipher_export()` (`exportRows`). The copy is
/// fsynced before this returns.
enum DatabaseCopier {
    /// Copies `source` (whose probe is `file`) into `target.path`, checking `token` on the way.
    ///
    /// - Throws: `CipherKitError` (`cannotDecrypt`, `damagedPages`, `hotJournal`, `cancelled`,
    ///   `fileExists`, …); the caller removes `target.path` when this throws.
    static func copy(_ source: OpenRequest, file: DatabaseFile, to target: CopyTarget, token: CancellationToken) throws -> DatabaseCopy {
        var reading = source
        reading.mode = .readWrite
        // The copy attached to this connection is written in large blocks while it is held
        // EXCLUSIVE (CoalescingVFS; the source is only read, under a SHARED lock).
        reading.coalescedIO = true
        // The target's key is derived once, with a salt chosen here, on another core while
        // the source's is derived; it is used only if the source's derivation proves itself
        // by opening the source. Verification then reuses the raw key.
        var chosen = target.settings ?? CipherSettings()
        chosen.salt = chosen.salt ?? KeyDerivation.randomSalt()
        let speculative: PendingKey? = {
            guard let given = target.key, given.kind == .passphrase, source.key?.kind == .passphrase, let salt = chosen.salt else { return nil }
            let derivationSettings = chosen
            return PendingKey { try KeyDerivation.rawKey(for: given, salt: salt, settings: derivationSettings) }
        }()
        try refuseHotJournal(source, file: file)
        let opened = try DatabaseOpener.open(reading, probed: file, deriveOnce: true)
        // The source is only read: closing must not checkpoint its WAL into it.
        opened.connection.setCheckpointOnClose(false)
        try PageScan.requireUndamaged(opened)
        var target = target
        if let speculative, opened.key?.kind == .rawKeyWithSalt {
            target.key = try speculative.value()
            target.settings = chosen
        }
        try FileOperations.createExclusive(target.path)
        let sourceSettings = source.key == nil
            ? nil : try CipherKitError.translating(path: source.path, file: file) { try DatabaseInspector.cipherSettings(of: opened.connection) }
        let copy: DatabaseCopy
        if let key = target.key, let settings = target.settings, let sourceSettings, pagesFit(source: sourceSettings, destination: settings) {
            copy = try copyPages(from: opened, source: source, sourceSettings: sourceSettings, to: target, key: key, settings: settings, token: token)
        } else {
            copy = try exportRows(from: opened, source: source, sourceSettings: sourceSettings, to: target, token: token)
        }
        try FileOperations.sync(target.path)
        return copy
    }

    /// Refuses a source with a hot journal: the read-write connection a copy needs would roll
    /// it back, and a copy never writes its source. A read-only open names it.
    private static func refuseHotJournal(_ source: OpenRequest, file: DatabaseFile) throws {
        guard (FileOperations.size(of: source.path + "-journal") ?? 0) > 0 else { return }
        var readOnly = source
        readOnly.mode = .readOnly
        try DatabaseOpener.open(readOnly, probed: file).connection.close()
    }

    /// Reopens a written copy with its key and settings and checks it against `expected`:
    /// every page against its HMAC where the format has them, SQLite's quick_check, and the
    /// schema, header fields and row counts.
    static func verify(
        at path: String, key: KeyMaterial?, settings: CipherSettings?, expected: DatabaseSnapshot, logLevel: CipherLogLevel
    ) throws -> VerificationReport {
        let request = OpenRequest(path: path, key: key, settings: settings ?? CipherSettings(), mode: .readOnly, logLevel: logLevel)
        let report: VerificationReport = try {
            let opened = try DatabaseOpener.open(request)
            return try CipherKitError.translating(path: path) {
                let integrity = try IntegrityReport.run(on: opened, quick: true)
                let snapshot = try DatabaseSnapshot.read(from: opened.connection)
                return VerificationReport(integrity: integrity, differences: snapshot.differences(from: expected), oldKeyRejected: nil)
            }
        }()
        // A read-only connection to a WAL file leaves an empty -wal and a -shm behind; they
        // would outlive a rename of the file under their own, temporary, names.
        if TemporaryDatabase.isTemporary(path), FileOperations.size(of: path + "-wal") ?? 0 == 0 {
            unlink(path + "-wal")
            unlink(path + "-shm")
        }
        return report
    }
}
