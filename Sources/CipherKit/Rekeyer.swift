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
        // Every page is checked before anything changes: SQLite would find damage only
        // half-way through, with the file already changed.
        try PageScan.requireUndamaged(opened)
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

    /// Checkpoints a WAL database into the main file and switches it to DELETE mode.
    static func leaveWAL(_ connection: Connection, journal: String, path: String) throws {
        guard journal == "wal" else { return }
        try checkpoint(connection, path: path)
        guard try connection.pragmaText("journal_mode = DELETE")?.lowercased() == "delete" else {
            throw CipherKitError.busy(path: path)
        }
    }

    static func restoreWAL(_ connection: Connection, journal: String) throws {
        guard journal == "wal" else { return }
        _ = try connection.pragmaText("journal_mode = WAL")
    }

    /// Re-encrypts every page under an exclusive lock, through the WAL.
    ///
    /// The connection takes SQLite's exclusive locking mode (no other connection can read or
    /// write until it closes, and the WAL index stays in its memory, so no `-shm` file) and
    /// switches the database to WAL for the rekey. In WAL mode `sqlite3_rekey_v2` writes each
    /// page once, encrypted with the new key, into the WAL, and commits with one frame; a
    /// rollback journal would also have to re-encrypt every old page to journal it. A
    /// checkpoint then copies the pages into the database file (no crypto), and the journal
    /// mode goes back to what it was. Killed before the commit frame, the WAL is ignored and
    /// the old key opens the file; after it, every page is in the WAL and only the new key
    /// opens it; SQLite recovers either way on the next open. A database that was not in WAL
    /// mode is marked (`InterruptedRekey`) while it is, so a later run can switch it back.
    /// The commit point is inside `sqlite3_rekey_v2`; cancellation is honoured only before it.
    private static func rekeyInPlace(
        _ connection: Connection, request: RekeyRequest, originalJournal: String, opensWith: String, token: CancellationToken
    ) throws -> DatabaseSnapshot {
        let path = request.database.path
        // In exclusive locking mode the lock taken here is kept after COMMIT, until the end.
        _ = try connection.pragmaText("locking_mode = EXCLUSIVE")
        let snapshot: DatabaseSnapshot
        do {
            try connection.execute("BEGIN EXCLUSIVE")
            snapshot = try DatabaseSnapshot.read(from: connection, countRows: request.verify)
            if let backup = request.backupPath {
                try FileOperations.copy(path, to: backup)
            }
            try connection.execute("COMMIT")
            try token.check(path)
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            _ = try? connection.pragmaText("locking_mode = NORMAL")
            throw error
        }
        let marker = originalJournal == "wal" ? nil : try InterruptedRekey.mark(path, journal: "delete")
        var committed = false
        do {
            guard try connection.pragmaText("journal_mode = WAL")?.lowercased() == "wal" else {
                throw CipherKitError.busy(path: path)
            }
            try connection.rekey(request.newKey)
            if !connection.isAutocommit { try connection.execute("COMMIT") }
            committed = true
            try leaveInPlaceWAL(connection, originalJournal: originalJournal, path: path)
            if let marker { InterruptedRekey.clear(marker) }
            return snapshot
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            if (try? leaveInPlaceWAL(connection, originalJournal: originalJournal, path: path)) != nil, let marker {
                InterruptedRekey.clear(marker)
            }
            // The mark stays when the journal mode could not be put back: a rerun finishes it.
            throw committed ? CipherKitError.afterCommit(error, path: path, opensWith: opensWith) : error
        }
    }

    /// Copies the WAL into the database file and empties it; busy when a reader holds it.
    private static func checkpoint(_ connection: Connection, path: String) throws {
        let result = try connection.rows("PRAGMA wal_checkpoint(TRUNCATE)").first ?? []
        if result.first == .integer(1) { throw CipherKitError.busy(path: path) }
    }

    /// Copies the WAL into the database file and goes back to the original journal mode.
    private static func leaveInPlaceWAL(_ connection: Connection, originalJournal: String, path: String) throws {
        if originalJournal == "wal" {
            try checkpoint(connection, path: path)
        } else {
            try leaveWAL(connection, journal: "wal", path: path)
        }
        _ = try connection.pragmaText("locking_mode = NORMAL")
    }

    /// Holds a RESERVED lock (readers may go on, writers wait) while a verified copy with
    /// the new key and settings is written and renamed over the original.
    private static func exportAndReplace(
        _ connection: Connection, request: RekeyRequest, file: DatabaseFile, settings: CipherSettings, walCopy: Bool, token: CancellationToken,
        progress: (@Sendable (ProgressPhase) -> Void)?
    ) throws -> (DatabaseSnapshot, CopyMethod) {
        let path = request.database.path
        try connection.execute("BEGIN IMMEDIATE")
        defer { if !connection.isAutocommit { try? connection.execute("ROLLBACK") } }
        let temporary = TemporaryDatabase.path(beside: path)
        do {
            var source = request.database
            source.mode = .readOnly
            progress?(.copying(watch: temporary, expectedBytes: file.size))
            let copy = try Exporter.writeCopy(
                of: source, file: file, to: temporary, key: request.newKey, settings: settings, wal: walCopy, countRows: request.verify, token: token)
            if request.verify {
                progress?(.verifying)
                let report = try Exporter.verifyCopy(
                    at: temporary, key: copy.destinationKey, settings: settings, expected: copy.snapshot, logLevel: source.logLevel)
                if !report.isOK { throw CipherKitError.verificationFailed(path: path, problems: report.problems) }
            }
            try FileOperations.copyPermissions(from: path, to: temporary)
            if let backup = request.backupPath {
                try FileOperations.createLink(from: path, to: backup)
            }
            try token.check(path)
            try FileOperations.move(temporary, to: path, replace: true)
            do {
                try FileOperations.syncDirectory(of: path)
            } catch {
                throw CipherKitError.afterCommit(error, path: path, opensWith: "the new key (" + settings.summary + ")")
            }
            return (copy.snapshot, copy.method)
        } catch {
            FileOperations.removeDatabase(temporary)
            throw CipherKitError.namingOutOfSpace(error, writing: path)
        }
    }

    /// Reopens the database with the new key and checks it; then makes sure the old key fails.
    /// `checkOldKey` false skips that last step, for a key and settings that did not change.
    static func verify(
        path: String, request: RekeyRequest, settings: CipherSettings, expected: DatabaseSnapshot, checkOldKey: Bool = true
    ) throws -> VerificationReport {
        let report: VerificationReport
        do {
            report = try Exporter.verifyCopy(
                at: path, key: request.newKey, settings: openSettings(settings), expected: expected, logLevel: request.database.logLevel)
        } catch CipherKitError.cannotDecrypt {
            return VerificationReport(
                integrity: IntegrityReport(cipherProblems: [], sqliteProblems: []),
                differences: ["the new key does not open the database: the rekey did not take effect (another process may hold it open)"],
                oldKeyRejected: nil)
        }
        var result = report
        guard checkOldKey else { return result }
        var withOldKey = request.database
        withOldKey.mode = .readOnly
        do {
            _ = try DatabaseOpener.open(withOldKey)
            result.oldKeyRejected = false
        } catch CipherKitError.cannotDecrypt {
            result.oldKeyRejected = true
        }
        return result
    }

    /// The settings to open the rekeyed database with: the ones written, without a salt the
    /// file itself holds.
    private static func openSettings(_ settings: CipherSettings) -> CipherSettings {
        var open = settings
        if (settings.plaintextHeaderSize ?? 0) == 0 { open.salt = nil }
        return open
    }
}
