import CSQLCipher
import Foundation

/// Changes the key (and, on request, the cipher settings or salt) of an encrypted database,
/// and proves the result.
///
/// A key-only change runs in place: the database is opened with the current key, held with
/// an exclusive lock while its schema, header fields and row counts are recorded, and
/// re-encrypted by `sqlite3_rekey_v2` in one transaction through the WAL, then checkpointed
/// and put back in its journal mode (see `rekeyInPlace`). A change of settings or salt, or a database in the
/// SQLCipher 1 or 2 format, goes through `Exporter`: a verified copy is renamed over the
/// original. Either way a SIGKILL at any instant leaves a database that opens with exactly one
/// of the two keys.
///
/// `sqlite3_rekey_v2` answers OK even when it changed nothing, so success is only what the
/// verification proves: the new key opens the file, the integrity checks pass, the schema,
/// header fields and row counts match, and the old key no longer opens it.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#rekey
public enum Rekeyer {
    /// `progress` hears each phase of the work (never for a dry run).
    public static func rekey(
        _ request: RekeyRequest, token: CancellationToken = CancellationToken(), progress: (@Sendable (ProgressPhase) -> Void)? = nil
    ) throws -> RekeyReport {
        let path = request.database.path
        // A rekey killed while the database was not in its own journal mode left a mark that
        // says which mode to put back (`InterruptedRekey`).
        let marks = request.dryRun ? [] : InterruptedRekey.marks(beside: path)
        let markedJournal = InterruptedRekey.originalJournal(marks)
        let removed = request.dryRun ? [] : TemporaryDatabase.removeLeftovers(beside: path)
        var current = request.database
        current.mode = .readWrite
        // Large reads and writes while the database is held EXCLUSIVE (the in-place rekey).
        current.coalescedIO = true
        let probed = try DatabaseFile.probe(path)
        if probed.kind == .plaintext {
            throw CipherKitError.refused(path: path, reason: "the file is a plaintext SQLite database; 'cipherctl export SRC DEST --to-key-env VAR' writes an encrypted copy")
        }
        let file = try DatabaseOpener.precheck(current, probed: probed)
        guard let currentKey = current.key else { throw CipherKitError.cannotDecrypt(path: path, failure: .keyRequired) }
        try request.newSettings.validate()
        let changesSettings = !request.newSettings.isEmpty || request.newSalt
        if !changesSettings, request.newKey.hasSameSecret(as: currentKey) {
            throw CipherKitError.refused(path: path, reason: "the new key is the same as the current one")
        }
        if let backup = request.backupPath, FileOperations.exists(backup) {
            throw CipherKitError.fileExists(path: backup)
        }

        // The passphrase is derived once here (and the new one once below); every later open
        // uses the raw keys. When the rekey will be in place, the new key (same salt, same KDF
        // settings) is derived on another core meanwhile.
        let speculative: PendingKey? = {
            guard request.deriveConcurrently, !changesSettings, (current.settings.compatibility ?? 4) >= 3, currentKey.kind == .passphrase,
                  request.newKey.kind != .rawKeyWithSalt,
                  let salt = current.settings.salt ?? (file.kind == .opaque ? file.firstBytes : nil), salt.count == 16 else { return nil }
            let newKey = request.newKey, settings = current.settings
            return PendingKey { try KeyDerivation.rawKey(for: newKey, salt: salt, settings: settings) }
        }()
        let opened: OpenedDatabase
        do {
            opened = try DatabaseOpener.open(current, probed: file, deriveOnce: true)
        } catch CipherKitError.cannotDecrypt(let failedPath, let failure) {
            // An earlier run (perhaps killed after its commit) may have done the work: the new
            // key opens the file with the target settings. If it does not, the key was wrong.
            guard let report = try alreadyDone(request, file: file, marks: marks, removed: removed) else {
                throw CipherKitError.cannotDecrypt(path: failedPath, failure: failure)
            }
            return report
        }
        let connection = opened.connection, openingKey = opened.key
        // Until the first change, closing must not checkpoint a WAL (a dry run, a refusal).
        connection.setCheckpointOnClose(false)
        let oldSettings = try DatabaseOpener.translating(path: path) { try DatabaseInspector.cipherSettings(of: connection) }
        let oldFormat = oldSettings.compatibility.map { $0 <= 2 } ?? false
        let saltChanges = request.newKey.kind == .rawKeyWithSalt && request.newKey.salt != oldSettings.salt
        let action: RekeyAction = changesSettings || oldFormat || saltChanges ? .exportAndReplace : .inPlace
        if request.newSalt, (oldSettings.plaintextHeaderSize ?? 0) > 0 {
            throw CipherKitError.refused(path: path, reason: "--new-salt on a database with a plaintext header would need the new salt stored elsewhere; move it to a plaintext header again after the rekey instead")
        }
        let newSettings = action == .inPlace ? oldSettings : try targetSettings(for: request, old: oldSettings)
        let saltStays = !request.newSalt || (request.newSaltValue != nil && request.newSaltValue == oldSettings.salt)
        if request.newKey.hasSameSecret(as: currentKey), saltStays, sameFormat(newSettings, oldSettings) {
            // The same key and the settings the file already has: the migration is done.
            try connection.close()
            guard let report = try alreadyDone(request, file: file, marks: marks, removed: removed) else {
                throw CipherKitError.cannotDecrypt(path: path, failure: .wrongKeyOrSettings)
            }
            return report
        }
        // Every page is checked before anything changes: SQLite would find damage only
        // half-way through, with the file already changed. (`alreadyDone` checks its own.)
        try PageScan.requireUndamaged(opened)
        var effective = request
        effective.database.key = openingKey
        effective.database.settings = opened.settings
        if openingKey?.kind == .rawKeyWithSalt, currentKey.kind == .passphrase, let salt = newSettings.salt {
            let sameDerivation = KeyDerivation.parameters(for: current.settings) == KeyDerivation.parameters(for: opened.settings)
            if action == .inPlace, sameDerivation, let speculative {
                // Same salt and KDF settings as the old key, whose raw form just opened the file.
                effective.newKey = try speculative.value()
            } else {
                effective.newKey = try KeyDerivation.rawKey(for: request.newKey, salt: salt, settings: newSettings)
            }
        }

        // The WAL of an in-place rekey holds every page with a 24-byte frame header; a copy is
        // about the database's size.
        let written = action == .inPlace ? 32 + (file.size / max(1, oldSettings.pageSize ?? 4096) + 1) * (24 + (oldSettings.pageSize ?? 4096)) : file.size
        let needed = written + 1 << 20
        if let available = FileOperations.availableSpace(near: path), available < needed {
            throw CipherKitError.insufficientSpace(path: path, needed: needed, available: available)
        }
        // sqlite3_rekey_v2 answers OK when its WAL cannot be written: the WAL (or copy) must
        // fit under the file-size limit before anything starts.
        if let limit = FileOperations.fileSizeLimit(), limit < written {
            throw CipherKitError.outOfSpace(path: action == .inPlace ? path + "-wal" : path)
        }
        try FileOperations.requireWritableDirectory(for: path, purpose: "the journal or the new copy goes there")
        try FileOperations.requireWritableFiles(of: path)

        return try DatabaseOpener.translating(path: path, file: file) {
            let currentJournal = (try connection.pragmaText("journal_mode") ?? "delete").lowercased()
            let originalJournal = markedJournal ?? currentJournal
            if request.dryRun {
                // Leaving WAL mode, as the real run does, waits for every other connection to close.
                if currentJournal == "wal", FileOperations.isSharedByAnotherProcess(path) { throw CipherKitError.busy(path: path) }
                try connection.execute("BEGIN EXCLUSIVE")
                let snapshot = try DatabaseSnapshot.read(from: connection)
                try connection.execute("ROLLBACK")
                return RekeyReport(
                    path: path, action: action, oldSettings: oldSettings, newSettings: newSettings, pages: file.size / max(1, oldSettings.pageSize ?? 4096),
                    bytes: file.size, seconds: 0, verificationSeconds: 0, verification: nil, backupPath: request.backupPath, dryRun: true,
                    removedLeftovers: removed, snapshot: snapshot, format: opened.format, formatAttempts: opened.attempts)
            }
            // A WAL database is checkpointed and left in DELETE mode first (a backup copy of the
            // file is then whole); the in-place rekey takes WAL mode again for itself. The mark
            // comes first, so that a run killed in between knows to put WAL back.
            connection.setCheckpointOnClose(true)
            let walMark = currentJournal == "wal" && markedJournal == nil ? try InterruptedRekey.mark(path, journal: "wal") : nil
            try leaveWAL(connection, journal: currentJournal, path: path)
            let started = Date()
            var snapshot: DatabaseSnapshot
            var method: CopyMethod?
            let opensWith = "the new key (" + newSettings.summary + ")"
            do {
                if action == .exportAndReplace {
                    (snapshot, method) = try exportAndReplace(
                        connection, request: effective, file: file, settings: newSettings, walCopy: originalJournal == "wal", token: token,
                        progress: progress)
                } else {
                    progress?(.rekeying(watch: path + "-wal", expectedBytes: file.size))
                    snapshot = try rekeyInPlace(
                        connection, request: effective, originalJournal: originalJournal, opensWith: opensWith, token: token)
                }
            } catch {
                // After the commit (an export-and-replace's rename) this connection may hold the
                // old, unlinked file: its journal mode is not the database's any more.
                if (error as? CipherKitError)?.isAfterCommit != true,
                   (try? restoreWAL(connection, journal: originalJournal)) != nil, let walMark {
                    InterruptedRekey.clear(walMark)
                }
                throw error
            }
            snapshot.journalMode = originalJournal
            marks.forEach(InterruptedRekey.clear)
            if let walMark { InterruptedRekey.clear(walMark) }
            let changed = Date()
            var verification: VerificationReport?
            defer { progress?(.finished) }
            do {
                // After export-and-replace this connection holds the old, unlinked file: it must not
                // switch that to WAL, which would make -wal and -shm files under the new file's name.
                try connection.close()
                if request.verify {
                    progress?(.verifying)
                    verification = try verify(path: path, request: effective, settings: newSettings, expected: snapshot)
                }
            } catch {
                throw CipherKitError.afterCommit(error, path: path, opensWith: opensWith)
            }
            let bytes = FileOperations.size(of: path) ?? 0
            return RekeyReport(
                path: path, action: action, oldSettings: oldSettings, newSettings: newSettings,
                pages: bytes / max(1, newSettings.pageSize ?? 4096), bytes: bytes,
                seconds: changed.timeIntervalSince(started), verificationSeconds: Date().timeIntervalSince(changed),
                verification: verification, backupPath: request.backupPath, dryRun: false, removedLeftovers: removed + marks, snapshot: snapshot,
                format: opened.format, formatAttempts: opened.attempts, copyMethod: method)
        }
    }

    /// The full settings of the new database: the old ones, or `--new-compat`'s defaults, with the changes on top.
    static func targetSettings(for request: RekeyRequest, old: CipherSettings) throws -> CipherSettings {
        var base = old
        if let version = request.newSettings.compatibility {
            guard var defaults = CipherSettings.defaults(forCompatibility: version) else { throw CipherSettingsError.compatibility(version) }
            defaults.compatibility = version
            defaults.plaintextHeaderSize = old.plaintextHeaderSize
            defaults.salt = old.salt
            base = defaults
        }
        var target = request.newSettings.overriding(base)
        if request.newSalt { target.salt = request.newSaltValue ?? KeyDerivation.randomSalt() }
        if request.newKey.kind == .rawKeyWithSalt { target.salt = request.newKey.salt }
        try target.validateUsablePageSize()
        return target
    }
}
