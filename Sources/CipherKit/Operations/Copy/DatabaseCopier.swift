import FoundationEssentials
import Glibc

/// Writes a copy of a database into a new file with other keys or settings, and checks a
/// written copy: the one mechanism behind export, a rekey that changes settings, and the
/// plaintext-header move's verification.
///
/// The source is opened read-write (SQLCipher's export attaches the copy to it), or, when this
/// process cannot write beside it, read as its snapshot on a connection that can still write
/// what it attaches; it is only ever read. Every
/// page is checked before any of the copy is trusted (by the engine as it goes, by a page
/// scan before the other paths). A change of key, salt or KDF that keeps the page
/// size and reserved bytes is copied page by page: by the page engine on every core
/// (`copyWithEngine`), or, when the source's WAL holds frames, by SQLite's backup
/// (`copyPages`). The engine also decrypts, and encrypts a plaintext database whose pages
/// already reserve the room for the IV and HMAC. Any other change goes through
/// `sqlcipher_export()` (`exportRows`). The copy is fsynced before this returns.
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
        // A read-write open of a WAL source this process cannot write beside fails (it cannot
        // make the -shm) or makes files it cannot take away: its snapshot is read instead.
        if !FileOperations.canWriteBeside(source.path) {
            reading.mode = .readOnly
            reading.untouched = .snapshotAttachingWritable
        }
        // An encrypted copy's salt is chosen here unless given. Its key is derived once, with
        // that salt, on another core while the source's is derived; it is used only if the
        // source's derivation proves itself by opening the source (else `write` derives it).
        // The engine and every later open reuse the raw key.
        var target = target
        var chosen = target.settings ?? CipherSettings()
        chosen.salt = chosen.salt ?? KeyDerivation.randomSalt()
        if target.settings != nil { target.settings = chosen }
        let speculative: PendingKey? = {
            guard let given = target.key, given.kind == .passphrase, source.key?.kind == .passphrase, let salt = chosen.salt else { return nil }
            let derivationSettings = chosen
            return PendingKey { try KeyDerivation.rawKey(for: given, salt: salt, settings: derivationSettings) }
        }()
        try refuseHotJournal(source, file: file)
        let opened = try DatabaseOpener.open(reading, probed: file)
        // The source is only read: closing must not checkpoint its WAL into it, and the -wal
        // and -shm this read-write open made beside a WAL database go when it is done.
        opened.connection.setCheckpointOnClose(false)
        defer { opened.closeRemovingWALFilesItMade() }
        if let speculative, opened.key?.kind == .rawKeyWithSalt {
            target.key = try speculative.value()
        }
        let sourceSettings = source.key == nil
            ? nil : try CipherKitError.translating(path: source.path, file: opened.file) { try DatabaseInspector.cipherSettings(of: opened.connection) }
        let copy = try write(from: opened, source: source, sourceSettings: sourceSettings, to: target, token: token)
        try FileOperations.sync(target.path)
        return copy
    }

    /// Writes the copy by the fastest path that can: the page engine, SQLite's backup, or
    /// `sqlcipher_export()`.
    private static func write(
        from opened: OpenedDatabase, source: OpenRequest, sourceSettings: CipherSettings?, to target: CopyTarget, token: CancellationToken
    ) throws -> DatabaseCopy {
        let exporting = { (target: CopyTarget) in
            try exportRows(from: opened, source: source, sourceSettings: sourceSettings, to: target, token: token)
        }
        guard let settings = target.settings, let givenKey = target.key else {
            // A plaintext copy: the engine decrypts the pages, their reserve kept as unused space.
            let decrypting = try sourceSettings.flatMap { try engine(for: opened, sourceSettings: $0, key: nil, settings: nil, threads: target.threads) }
            let job = CopyJob(opened: opened, source: source, sourceSettings: sourceSettings, target: target, token: token)
            return try viaEngine(job, engine: decrypting) {
                try exporting(target)
            }
        }
        // A key the speculative derivation did not give is derived here, once, with the salt `copy` chose.
        var target = target
        if givenKey.kind != .rawKeyWithSalt, let salt = settings.salt {
            target.key = try KeyDerivation.rawKey(for: givenKey, salt: salt, settings: settings.effective)
        }
        let key = target.key ?? givenKey
        guard let sourceSettings else {
            // Encrypting: the engine when the plaintext pages already reserve the space.
            let encrypting = try encryptingEngine(for: opened, key: key, settings: settings, threads: target.threads)
            let job = CopyJob(opened: opened, source: source, sourceSettings: nil, target: target, token: token)
            return try viaEngine(job, engine: encrypting) { [target] in
                try exporting(target)
            }
        }
        let converting = try engine(for: opened, sourceSettings: sourceSettings, key: key, settings: settings, threads: target.threads)
        let job = CopyJob(opened: opened, source: source, sourceSettings: sourceSettings, target: target, token: token)
        return try viaEngine(job, engine: converting) { [target] in
            guard pagesFit(source: sourceSettings, destination: settings) else { return try exporting(target) }
            return try copyPages(job, key: key, settings: settings)
        }
    }

    /// The page engine when there is one and the source's WAL is empty, else `otherwise`.
    /// Every source page is checked first unless the engine checks it (its HMAC) as it goes.
    private static func viaEngine(_ job: CopyJob, engine: PageEngine?, otherwise: () throws -> DatabaseCopy) throws -> DatabaseCopy {
        let engineChecks = engine?.source?.hasHMAC == true
        if !engineChecks { try PageScan.requireUndamaged(job.opened) }
        try FileOperations.createExclusive(job.target.path)
        if let engine, let copy = try copyWithEngine(job, engine: engine) {
            return copy
        }
        if engineChecks { try PageScan.requireUndamaged(job.opened) }
        return try otherwise()
    }

    /// Refuses a source with a hot journal: the read-write connection a copy needs would roll
    /// it back, and a copy never writes its source. A read-only open names it.
    static func refuseHotJournal(_ source: OpenRequest, file: DatabaseFile) throws {
        guard (FileOperations.size(of: source.path + "-journal") ?? 0) > 0 else { return }
        var readOnly = source
        readOnly.mode = .readOnly
        try DatabaseOpener.open(readOnly, probed: file).connection.close()
    }

    /// Reopens a written copy with its key and settings and checks it against `expected`:
    /// every page against its HMAC where the format has them, SQLite's quick_check (its whole
    /// integrity_check with `fullIntegrity`, which also compares every index with its table),
    /// and the schema, header fields and row counts.
    static func verify(
        at path: String, key: KeyMaterial?, settings: CipherSettings?, expected: DatabaseSnapshot, logLevel: CipherLogLevel,
        fullIntegrity: Bool = false
    ) throws -> VerificationReport {
        var request = OpenRequest(path: path, key: key, settings: settings ?? CipherSettings(), mode: .readOnly, logLevel: logLevel)
        // An ordinary read-only connection to a WAL file leaves an empty -wal and a -shm
        // behind; this one creates nothing (`SnapshotVFS`).
        request.untouched = .snapshot
        let opened = try DatabaseOpener.open(request)
        return try CipherKitError.translating(path: path) {
            let integrity = try IntegrityReport.run(on: opened, quick: !fullIntegrity)
            let snapshot = try DatabaseSnapshot.read(from: opened.connection)
            return VerificationReport(integrity: integrity, differences: snapshot.differences(from: expected), oldKeyRejected: nil)
        }
    }
}
