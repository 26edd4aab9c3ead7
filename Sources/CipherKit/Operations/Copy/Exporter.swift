import CSQLCipher
import Foundation

/// Copies a database to a new file with other keys or settings, through SQLCipher's
/// `sqlcipher_export()`, and moves the verified copy into place.
///
/// The copy is written to a temporary file beside the destination (mode 0600), attached to
/// the source's connection (`ATTACH … KEY ?`, the key bound, never in the SQL text), in one
/// transaction; the source is only read. What `sqlcipher_export()` drops is carried over: `auto_vacuum` (set before
/// anything is written), `user_version`, `application_id` and WAL mode. The file is fsynced,
/// reopened and checked, then renamed into place and the directory fsynced. On any failure
/// the temporary file is removed and the destination is not created.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#sqlcipher_export
public enum Exporter {
    /// Exports `request.source` to `request.destinationPath`.
    ///
    /// - Throws: `CipherKitError` (`fileExists` unless replacing, `refused` for a destination
    ///   that is a symlink or the source itself, `cannotDecrypt` for a wrong source key,
    ///   `verificationFailed`, `cancelled`, …).
    /// `progress` hears each phase of the work.
    public static func export(
        _ request: ExportRequest, token: CancellationToken = CancellationToken(), progress: (@Sendable (ProgressPhase) -> Void)? = nil
    ) throws -> ExportReport {
        let source = request.source.path
        let destination = request.destinationPath
        if FileOperations.isSymbolicLink(destination) {
            throw CipherKitError.refused(path: destination, reason: "the destination is a symbolic link; give the real path")
        }
        if FileOperations.sameFile(source, destination) {
            throw CipherKitError.refused(path: destination, reason: "the destination is the source itself; use 'cipherctl rekey' to change a database in place")
        }
        let settings = try destinationSettings(for: request)
        if FileOperations.exists(destination), !request.replaceExisting {
            // A rerun after a finished (or killed-after-rename) export is already done.
            if let report = try alreadyExported(request, settings: settings) { return report }
            throw CipherKitError.fileExists(path: destination)
        }
        try FileOperations.requireWritableDirectory(for: destination, purpose: "the copy is written there, then renamed")
        let removed = TemporaryDatabase.removeLeftovers(beside: destination)
        let sourceFile = try DatabaseOpener.precheck(request.source)
        if let available = FileOperations.availableSpace(near: destination), available < sourceFile.size {
            throw CipherKitError.insufficientSpace(path: destination, needed: sourceFile.size, available: available)
        }

        let temporary = TemporaryDatabase.path(beside: destination)
        defer { progress?(.finished) }
        do {
            progress?(.copying(watch: temporary, expectedBytes: sourceFile.size))
            let started = Date()
            let copy = try writeCopy(
                of: request.source, file: sourceFile, to: temporary, key: request.destinationKey, settings: settings, countRows: request.verify, token: token)
            let written = Date()
            var verification: VerificationReport?
            if request.verify {
                progress?(.verifying)
                let report = try verifyCopy(
                    at: temporary, key: copy.destinationKey, settings: copy.destinationSettings, expected: copy.snapshot, logLevel: request.source.logLevel)
                if !report.isOK {
                    throw CipherKitError.verificationFailed(path: destination, problems: report.problems)
                }
                verification = report
            }
            let verified = Date()
            try token.check(source)
            try FileOperations.move(temporary, to: destination, replace: request.replaceExisting)
            do {
                try FileOperations.syncDirectory(of: destination)
            } catch {
                throw CipherKitError.afterCommit(error, path: destination, opensWith: copy.destinationSettings.map { "the destination key (\($0.summary))" } ?? "no key (plaintext)")
            }
            let bytes = FileOperations.size(of: destination) ?? 0
            return ExportReport(
                source: source, destination: destination,
                sourceSettings: copy.sourceSettings, destinationSettings: copy.destinationSettings,
                pages: bytes / max(1, copy.pageSize), bytes: bytes,
                seconds: written.timeIntervalSince(started), verificationSeconds: verified.timeIntervalSince(written),
                verification: verification, removedLeftovers: removed, snapshot: copy.snapshot,
                sourceFormat: copy.sourceFormat, sourceFormatAttempts: copy.sourceAttempts, method: copy.method)
        } catch {
            FileOperations.removeDatabase(temporary)
            throw CipherKitError.namingOutOfSpace(error, writing: destination)
        }
    }

    /// The full settings the destination is written with; nil for a plaintext destination.
    static func destinationSettings(for request: ExportRequest) throws -> CipherSettings? {
        guard request.destinationKey != nil else { return nil }
        var given = request.destinationSettings
        if given.salt == nil, request.destinationKey?.kind == .rawKeyWithSalt {
            given.salt = request.destinationKey?.salt
        }
        try given.validate()
        try given.requireKeptSalt(key: request.destinationKey, path: request.destinationPath)
        let version = given.compatibility ?? 4
        guard let defaults = CipherSettings.defaults(forCompatibility: version) else {
            throw CipherSettingsError.compatibility(version)
        }
        var base = defaults
        base.compatibility = version
        let settings = given.overriding(base)
        try settings.validateUsablePageSize()
        return settings
    }

    /// What `writeCopy` produced.
    struct Copy {
        var snapshot: DatabaseSnapshot
        var sourceSettings: CipherSettings?
        var destinationSettings: CipherSettings?
        var pageSize: Int
        /// The key the copy opens with: the destination key, or the raw key derived from it.
        var destinationKey: KeyMaterial?
        /// The source's format, when the search found it, and how many formats were tried.
        var sourceFormat: CipherFormat?
        var sourceAttempts: Int
        var method: CopyMethod = .sqlcipherExport
    }

    /// Writes a copy of `source` into a new file at `temporary`, keyed with `key` and
    /// `settings` (plaintext when `key` is nil), in one transaction; fsyncs it.
    ///
    /// The source is the connection's main database, opened with its key and settings and
    /// only ever read; the new file is attached as `dest` (`ATTACH … KEY ?`, the key bound) and
    /// given its settings before anything is written, as SQLCipher documents for a new
    /// attached database. `wal` overrides the source's journal mode for the copy (a source
    /// switched out of WAL for the operation still gets a WAL copy). The caller removes
    /// `temporary` when this throws.
    static func writeCopy(
        of source: OpenRequest, file: DatabaseFile, to temporary: String, key: KeyMaterial?, settings: CipherSettings?, wal: Bool? = nil,
        countRows: Bool = true, token: CancellationToken
    ) throws -> Copy {
        var reading = source
        reading.mode = .readWrite
        // The copy attached to this connection is written in large blocks while it is held
        // EXCLUSIVE (CoalescingVFS; the source is only read, under a SHARED lock).
        reading.coalescedIO = true
        // The destination's key is derived once, with a salt chosen here, on another core
        // while the source's is derived; it is used only if the source's derivation proves
        // itself by opening the source. Verification then reuses the raw key.
        var chosen = settings ?? CipherSettings()
        chosen.salt = chosen.salt ?? KeyDerivation.randomSalt()
        let speculative: PendingKey? = {
            guard let given = key, given.kind == .passphrase, source.key?.kind == .passphrase, let salt = chosen.salt else { return nil }
            let derivationSettings = chosen
            return PendingKey { try KeyDerivation.rawKey(for: given, salt: salt, settings: derivationSettings) }
        }()
        try refuseHotJournal(source, file: file)
        let opened = try DatabaseOpener.open(reading, probed: file, deriveOnce: true)
        let connection = opened.connection, sourceKey = opened.key
        // The source is only read: closing must not checkpoint its WAL into it.
        connection.setCheckpointOnClose(false)
        try PageScan.requireUndamaged(opened)
        var key = key
        var settings = settings
        if let speculative, sourceKey?.kind == .rawKeyWithSalt {
            key = try speculative.value()
            settings = chosen
        }
        try FileOperations.createExclusive(temporary)
        let sourceSettings = source.key == nil
            ? nil : try DatabaseOpener.translating(path: source.path, file: file) { try DatabaseInspector.cipherSettings(of: connection) }
        if let key, let settings, let sourceSettings, PageCopy.fits(source: sourceSettings, destination: settings) {
            return try copyPages(
                from: connection, opened: opened, source: source, sourceSettings: sourceSettings, to: temporary, key: key, settings: settings,
                wal: wal, countRows: countRows, token: token)
        }
        let copy: Copy = try token.interrupting(connection) {
            try DatabaseOpener.translating(path: temporary) {
                let attach = try connection.prepare("ATTACH DATABASE ? AS dest KEY ?")
                try attach.bind(.text(temporary), at: 1)
                try attach.bind(key: key, at: 2)
                try attach.step()
                if key != nil {
                    for pragma in (settings ?? CipherSettings()).pragmas(schema: "dest") { try connection.execute(pragma) }
                }
            }
            return try DatabaseOpener.translating(path: source.path, file: file) {
                let autoVacuum = try connection.pragmaInteger("main.auto_vacuum") ?? 0
                try connection.execute("PRAGMA dest.auto_vacuum = \(autoVacuum)")
                try token.check(source.path)
                try connection.execute("BEGIN")
                do {
                    var snapshot = try DatabaseSnapshot.read(from: connection, countRows: countRows)
                    if let wal { snapshot.journalMode = wal ? "wal" : "delete" }
                    _ = try connection.scalar("SELECT sqlcipher_export('dest')")
                    try connection.execute("PRAGMA dest.user_version = \(snapshot.userVersion)")
                    try connection.execute("PRAGMA dest.application_id = \(snapshot.applicationID)")
                    try token.check(source.path)
                    try connection.execute("COMMIT")
                    if snapshot.journalMode.lowercased() == "wal" {
                        _ = try connection.pragmaText("dest.journal_mode = WAL")
                    }
                    let destinationSettings = key == nil ? nil : try DatabaseInspector.cipherSettings(of: connection, schema: "dest")
                    let pageSize = try connection.pragmaInteger("dest.page_size") ?? 4096
                    return Copy(
                        snapshot: snapshot, sourceSettings: sourceSettings, destinationSettings: destinationSettings, pageSize: pageSize,
                        destinationKey: key, sourceFormat: opened.format, sourceAttempts: opened.attempts)
                } catch {
                    if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
                    if let error = error as? DatabaseError, error.resultCode == SQLITE_INTERRUPT { throw CipherKitError.cancelled(path: source.path) }
                    throw error
                }
            }
        }
        try DatabaseOpener.translating(path: temporary) {
            try connection.execute("DETACH DATABASE dest")
            try connection.close()
        }
        try FileOperations.sync(temporary)
        return copy
    }

    /// Refuses a source with a hot journal: the read-write connection a copy needs would roll
    /// it back, and an export never writes its source. A read-only open names it.
    private static func refuseHotJournal(_ source: OpenRequest, file: DatabaseFile) throws {
        guard (FileOperations.size(of: source.path + "-journal") ?? 0) > 0 else { return }
        var readOnly = source
        readOnly.mode = .readOnly
        try DatabaseOpener.open(readOnly, probed: file).connection.close()
    }

    /// Reopens a written copy with its key and settings and checks it against `expected`.
    static func verifyCopy(at path: String, key: KeyMaterial?, settings: CipherSettings?, expected: DatabaseSnapshot, logLevel: CipherLogLevel) throws -> VerificationReport {
        let request = OpenRequest(path: path, key: key, settings: settings ?? CipherSettings(), mode: .readOnly, logLevel: logLevel)
        let report: VerificationReport = try {
            let opened = try DatabaseOpener.open(request)
            let connection = opened.connection
            return try DatabaseOpener.translating(path: path) {
                // Every page against its HMAC where the format has them, then SQLite's quick_check.
                let integrity = try IntegrityReport.run(on: opened, quick: true)
                let snapshot = try DatabaseSnapshot.read(from: connection)
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
