import FoundationEssentials
import Glibc

/// Moves an encrypted database to a plaintext header of a given size, back to a fully
/// encrypted header, or between sizes, by SQLCipher's documented procedure, crash-safely.
///
/// The procedure (read the header, note the salt, set `cipher_plaintext_header_size`, force
/// a header write with `PRAGMA user_version`) rewrites page 1 in place. To keep the original
/// whole at every instant, it runs on a byte copy beside the database while the original is
/// held with a RESERVED lock (readers go on, writers wait); the copy is fsynced, verified
/// (its first bytes, the key with the new header size and the salt, integrity, schema and
/// row counts) and renamed over the original. The salt is saved, when asked, before anything
/// is written, so it cannot be lost with the file's header.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_plaintext_header_size
public enum PlaintextHeaderMover {
    /// - Throws: `CipherKitError` (`refused` for a plaintext database or a size out of range,
    ///   `fileExists` for an existing salt file, `cannotDecrypt`, `busy`, `verificationFailed`,
    ///   `cancelled`, …); the original is unchanged whenever it throws.
    public static func move(_ request: PlaintextHeaderRequest, token: CancellationToken = CancellationToken()) throws -> PlaintextHeaderReport {
        var database = request.database
        database.mode = .readWrite
        let path = database.path
        // What killed runs left beside the database goes first, whatever this run then does.
        let removedBeside = TemporaryDatabase.removeLeftovers(beside: path, told: request.leftoverRemoved)
        let probed = try DatabaseFile.probe(path)
        if probed.kind == .plaintext {
            throw CipherKitError.refused(path: path, refusal: .plaintextSource)
        }
        guard request.size >= 0, request.size % 16 == 0 else {
            throw CipherSettingsError.plaintextHeaderSize(request.size)
        }
        // A run killed while it wrote the salt file leaves that file's temporary copy.
        let removed = removedBeside
            + (request.saltOutputPath.map { TemporaryDatabase.removeLeftovers(beside: $0, told: request.leftoverRemoved) } ?? [])
        // A rerun after a run killed past its rename: the salt it saved opens the file.
        let savedSalt = request.saltOutputPath.flatMap(readSalt)
        if probed.kind == .plaintextHeader, database.settings.salt == nil, database.key?.kind != .rawKeyWithSalt {
            database.settings.salt = savedSalt
        }
        // Before the open: a read-write open of a file it cannot write is read-only, and
        // beside a WAL database it makes a -wal and -shm that the refusal would leave.
        try FileOperations.requireWritableDirectory(for: path, purpose: "the new copy is written there")
        try FileOperations.requireWritableFiles(of: path)
        let opened = try DatabaseOpener.open(database, probed: probed)
        let connection = opened.connection
        connection.setCheckpointOnClose(false)
        try PageScan.requireUndamaged(opened)
        let pageSize = opened.settings.pageSize ?? 4096
        if request.size > 0, request.size >= pageSize - opened.settings.reservedBytes {
            throw CipherSettingsError.plaintextHeaderSize(request.size)
        }
        let salt: [UInt8] = try CipherKitError.translating(path: path, file: opened.file) {
            guard let salt = try connection.pragmaText("cipher_salt").flatMap(Hex.decode), salt.count == 16 else {
                throw CipherKitError.noSalt(path: path, reason: "PRAGMA cipher_salt gave no 16-byte salt")
            }
            return salt
        }
        // A salt file that already holds this salt is this database's: a rerun keeps it.
        let newSaltFile = savedSalt == salt ? nil : request.saltOutputPath
        if let newSaltFile { try FileOperations.writeNew(newSaltFile, contents: SaltFile.contents(of: salt)) }
        do {
            return try moveCopy(request, opened: opened, salt: salt, removed: removed, token: token)
        } catch {
            // Nothing changed, so the salt file this run made goes too; after the rename it is the key to the data.
            if let newSaltFile, (error as? CipherKitError)?.isAfterCommit != true { unlink(newSaltFile) }
            throw error
        }
    }

    /// The move itself, once the database is open, checked and its salt saved.
    private static func moveCopy(
        _ request: PlaintextHeaderRequest, opened: OpenedDatabase, salt: [UInt8], removed: [String], token: CancellationToken
    ) throws -> PlaintextHeaderReport {
        let connection = opened.connection, path = opened.file.path
        let oldSize = opened.settings.plaintextHeaderSize ?? 0
        var report = PlaintextHeaderReport(
            path: path, oldSize: oldSize, newSize: request.size, salt: salt, saltOutputPath: request.saltOutputPath, changed: false,
            seconds: 0, verification: nil, removedLeftovers: removed, snapshot: nil, format: opened.format, formatAttempts: opened.attempts)
        // A mark made before the journal mode changes lets a rerun put WAL back (`InterruptedRekey`).
        let marks = InterruptedRekey.marks(beside: path)
        report.removedLeftovers += marks
        guard request.size != oldSize else {
            // Already done; a run killed after its rename may have left its mark.
            try CipherKitError.translating(path: path) { try connection.putJournalBack(marks: marks) }
            marks.forEach(InterruptedRekey.clear)
            return report
        }
        let started = Date()
        let (journal, walMark) = try holdOutOfWAL(opened, marks: marks)
        defer { if !connection.isAutocommit { try? connection.execute("ROLLBACK") } }
        let temporary = TemporaryDatabase.path(beside: path)
        var committed = false
        do {
            let (snapshot, verification) = try writeVerifiedCopy(request, opened: opened, at: temporary, salt: salt, journal: journal, token: token)
            report.verification = verification
            try token.check(path)
            try FileOperations.copyPermissions(from: path, to: temporary)
            try FileOperations.move(temporary, to: path, replace: true)
            committed = true
            try FileOperations.syncDirectory(of: path)
            report.snapshot = snapshot
            try connection.execute("ROLLBACK")
            try connection.close()
        } catch {
            // After the rename this connection holds the old, unlinked file: leave it alone.
            if committed {
                throw CipherKitError.afterCommit(error, path: path, opensWith: "the same key, a \(request.size)-byte plaintext header and salt \(Hex.encode(salt))")
            }
            FileOperations.removeDatabase(temporary)
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            if (try? connection.restoreWAL(journal)) != nil, let walMark { InterruptedRekey.clear(walMark) }
            throw CipherKitError.namingOutOfSpace(error, writing: path)
        }
        (marks + [walMark].compactMap { $0 }).forEach(InterruptedRekey.clear)
        report.changed = true
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// Takes a WAL database out of WAL, as for a rekey, so its main file holds every page and
    /// no -wal or -shm is left beside the new file (the copy is switched back to WAL), and
    /// holds it with a RESERVED lock. Returns the database's own journal mode and the mark
    /// made before the mode changed, if one was.
    private static func holdOutOfWAL(_ opened: OpenedDatabase, marks: [String]) throws -> (journal: String, mark: String?) {
        let connection = opened.connection, path = opened.file.path
        return try CipherKitError.translating(path: path, file: opened.file) {
            let current = try connection.journalMode()
            connection.setCheckpointOnClose(true)
            let mark = current == "wal" && marks.isEmpty ? try InterruptedRekey.mark(path, journal: "wal") : nil
            do {
                try connection.leaveWAL(from: current)
                try connection.execute("BEGIN IMMEDIATE")
            } catch {
                // Refused (another process holds it): WAL back where it was left, no mark.
                if (try? connection.restoreWAL(current)) != nil, let mark { InterruptedRekey.clear(mark) }
                throw error
            }
            return (InterruptedRekey.originalJournal(marks) ?? current, mark)
        }
    }

    /// Copies the file byte for byte to `temporary`, rewrites the copy's header, fsyncs it and
    /// checks it: its first bytes, then (when asked) the key with the new header size and the
    /// salt, integrity, schema and row counts. Returns what the database held and the check.
    private static func writeVerifiedCopy(
        _ request: PlaintextHeaderRequest, opened: OpenedDatabase, at temporary: String, salt: [UInt8], journal: String,
        token: CancellationToken
    ) throws -> (DatabaseSnapshot, VerificationReport?) {
        let path = opened.file.path, logLevel = request.database.logLevel
        var snapshot = try CipherKitError.translating(path: path, file: opened.file) {
            try DatabaseSnapshot.read(from: opened.connection, countRows: request.verify)
        }
        snapshot.journalMode = journal
        try token.check(path)
        try FileOperations.copy(path, to: temporary)
        try rewriteHeader(of: temporary, opened: opened, request: request, userVersion: snapshot.userVersion, wal: journal == "wal")
        try FileOperations.sync(temporary)
        var problems = headerProblems(of: temporary, size: request.size, salt: salt)
        var verification: VerificationReport?
        if problems.isEmpty, request.verify {
            var newSettings = opened.settings
            newSettings.plaintextHeaderSize = request.size
            newSettings.salt = request.size > 0 ? salt : nil
            verification = try DatabaseCopier.verify(at: temporary, key: opened.key, settings: newSettings, expected: snapshot, logLevel: logLevel)
            problems = verification?.problems ?? []
        }
        if !problems.isEmpty { throw CipherKitError.verificationFailed(path: path, problems: problems) }
        return (snapshot, verification)
    }

    /// The salt a salt file written by an earlier run holds (hex and a newline), if it is one.
    private static func readSalt(_ path: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 64 else { return nil }
        let salt = Hex.decode(String(decoding: data, as: UTF8.self).trimmingWhitespaceAndNewlines())
        return salt?.count == 16 ? salt : nil
    }

    /// The documented procedure, on the copy at `path`: read the header with the settings
    /// `opened` found, set the size `request` asks for, rewrite page 1 (in DELETE mode, so
    /// into the file itself). `wal` switches the copy to WAL mode afterwards.
    private static func rewriteHeader(
        of path: String, opened: OpenedDatabase, request: PlaintextHeaderRequest, userVersion: Int, wal: Bool
    ) throws {
        try CipherKitError.translating(path: path) {
            let connection = try Connection(path: path, mode: .readWrite, logLevel: request.database.logLevel)
            if let key = opened.key { try connection.key(key) }
            try connection.apply(opened.settings)
            try connection.verifyReadable()
            try connection.execute("PRAGMA cipher_plaintext_header_size = \(request.size)")
            try connection.execute("PRAGMA user_version = \(userVersion)")
            if wal { _ = try connection.pragmaText("journal_mode = WAL") }
            try connection.close()
        }
    }

    /// What the file's first bytes show against the header asked for: the SQLite magic for a
    /// plaintext header, the salt for a fully encrypted one.
    private static func headerProblems(of path: String, size: Int, salt: [UInt8]) -> [String] {
        guard let file = try? DatabaseFile.probe(path) else { return ["the new file cannot be read"] }
        if size > 0, file.firstBytes != DatabaseFile.sqliteMagic {
            return ["the new file does not begin with the SQLite header"]
        }
        if size == 0, file.firstBytes != salt {
            return ["the new file does not begin with its salt"]
        }
        return []
    }
}
