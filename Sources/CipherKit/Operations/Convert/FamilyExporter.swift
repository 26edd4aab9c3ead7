import CSQLCipher
import FoundationEssentials

/// Export between SQLite3 Multiple Ciphers' ChaCha20 scheme and SQLCipher, with export's
/// guarantees: the source only read, the copy written under a temporary name beside the
/// destination (mode 0600), fsynced, checked, then renamed into place; on any failure the
/// temporary file is removed and no destination is made.
///
/// Into SQLCipher: every page of the source is decrypted in memory, its Poly1305 tag checked
/// (`ChaChaImage`), the plaintext opened as an in-memory database (`sqlite3_deserialize`),
/// and written by `sqlcipher_export()` (`DatabaseCopier.exportRows`); the copy is then
/// reopened and compared with the plaintext (schema, header fields, row counts, quick_check).
/// Out to ChaCha20: see `FamilyExporter+ChaCha20.swift`.
enum FamilyExporter {
    /// Exports `request` when its source or destination is of another family than SQLCipher's;
    /// nil when both are SQLCipher's (the caller's own export then runs).
    static func exportIfOtherFamily(_ request: ExportRequest, removed: [String], token: CancellationToken) throws -> ExportReport? {
        if request.destinationFamily == .chacha20 {
            try FIPSPolicy.requireApproved(cipher: "ChaCha20-Poly1305")
            var report = try exportToChaCha20(request, token: token)
            report.removedLeftovers = removed
            return report
        }
        let file = try DatabaseFile.probe(request.source.path)
        guard let scheme = try foreignScheme(of: file, request: request) else { return nil }
        if let cipher = scheme.cipherName { try FIPSPolicy.requireApproved(cipher: cipher) }
        var report = try exportFromForeign(request, file: file, scheme: scheme, token: token)
        report.removedLeftovers = removed
        return report
    }

    /// Exports a source that no SQLCipher format opened when it is a SQLCipher 1 to 3 file
    /// under another `PRAGMA cipher` its passphrase opens (no family given, and no cipher
    /// setting but a compatibility of 1 to 3); nil when it is not. Tried only then, so that no
    /// other export pays its derivations.
    static func exportIfOtherCipher(_ request: ExportRequest, removed: [String], token: CancellationToken) throws -> ExportReport? {
        let given = request.source.settings
        // A compatibility of SQLCipher 1 to 3 names no cipher: the search covers it.
        let searched = given.isEmpty || (given.with(\.compatibility, nil).isEmpty && (1...3).contains(given.compatibility ?? 0))
        guard request.sourceFamily == nil, searched, let key = request.source.key else { return nil }
        let file = try DatabaseFile.probe(request.source.path)
        guard let scheme = try legacyCipherScheme(of: file, key: key, named: false) else { return nil }
        var report = try exportFromForeign(request, file: file, scheme: scheme, token: token)
        report.removedLeftovers = removed
        return report
    }

    private static func exportFromForeign(_ request: ExportRequest, file: DatabaseFile, scheme: ForeignScheme, token: CancellationToken) throws -> ExportReport {
        let destination = request.destinationPath
        guard let key = request.source.key else { throw CipherKitError.cannotDecrypt(path: file.path, failure: .keyRequired) }
        if request.keepsSourceFormat { throw CipherKitError.refused(path: file.path, refusal: .formatNotKept(scheme.origin)) }
        try requireDestination(request)
        try refuseSideFiles(of: file.path)
        try requireMemory(for: file.path)
        let settings = try Exporter.destinationSettings(for: request)
        let started = Date()
        var image = try decryptedImage(file.path, scheme: scheme, key: key)
        let wal = image[18] == 2
        let connection: Connection
        do {
            defer { SecureBytes.wipe(&image) }
            try token.check(file.path)
            connection = try plaintextConnection(image, path: file.path)
        }
        try requireWhole(connection, scheme: scheme, path: file.path)
        let temporary = TemporaryDatabase.path(beside: destination)
        do {
            try FileOperations.createExclusive(temporary)
            let opened = OpenedDatabase(connection: connection, file: file, key: nil, settings: CipherSettings(), format: nil, attempts: 1)
            let target = CopyTarget(
                path: temporary, key: request.destinationKey, settings: settings, wal: wal, countRows: true,
                fullVerification: request.fullVerification, threads: 1, reportedPath: destination)
            let copy = try DatabaseCopier.exportRows(from: opened, source: request.source, sourceSettings: nil, to: target, token: token)
            try FileOperations.sync(temporary)
            let written = Date()
            let verification = try verify(copy, at: temporary, request: request)
            let verified = Date()
            try Exporter.moveIntoPlace(temporary, request: request, copy: copy)
            let bytes = FileOperations.size(of: destination) ?? 0
            return ExportReport(
                source: file.path, destination: destination, sourceSettings: nil, destinationSettings: copy.destinationSettings,
                pages: bytes / max(1, copy.pageSize), bytes: bytes, seconds: written.timeIntervalSince(started),
                verificationSeconds: verified.timeIntervalSince(written), verification: verification, removedLeftovers: [],
                snapshot: copy.snapshot, sourceFormat: nil, sourceFormatAttempts: 1, method: .sqlcipherExport, sourceScheme: scheme)
        } catch CipherKitError.damaged(let path) where path != file.path {
            // The copy reads the source's rows from its plaintext: a malformed page it meets
            // there is the source's, not the new file's.
            FileOperations.removeDatabase(temporary)
            throw ForeignDamage(path: file.path, pages: [], scheme: scheme.summary)
        } catch {
            FileOperations.removeDatabase(temporary)
            throw CipherKitError.namingOutOfSpace(error, writing: destination)
        }
    }

    /// The source's plaintext (`ForeignScheme.image`).
    ///
    /// - Throws: `ForeignDamage` for the pages that fail, what the read throws otherwise.
    private static func decryptedImage(_ path: String, scheme: ForeignScheme, key: KeyMaterial) throws -> [UInt8] {
        do {
            return try scheme.image(path, key: key)
        } catch CipherKitError.damagedPages(let path, let pages) {
            throw ForeignDamage(path: path, pages: pages, scheme: scheme.summary)
        }
    }

    /// SQLite's quick_check of the plaintext passes, for a scheme whose pages no MAC checked.
    ///
    /// - Throws: `ForeignDamage` with the check's first line.
    private static func requireWhole(_ connection: Connection, scheme: ForeignScheme, path: String) throws {
        switch scheme {
        case .wx: break
        case .legacyCipher(let legacy) where !legacy.hmac: break
        default: return
        }
        let problems: [String]
        do {
            problems = try connection.pragmaTexts("quick_check")
        } catch let error as DatabaseError {
            problems = [error.message]
        }
        guard problems != ["ok"] else { return }
        let pages = problems.prefix(1).map { DamagedPage(page: 0, reason: "SQLite's check of its plaintext: " + $0) }
        throw ForeignDamage(path: path, pages: pages, scheme: scheme.summary)
    }

    /// The destination checks every export makes: not a symbolic link nor the source, not
    /// there already unless replacing, and in a folder the copy can be written to.
    static func requireDestination(_ request: ExportRequest) throws {
        try Exporter.refuseDestination(of: request)
        if FileOperations.exists(request.destinationPath), !request.replaceExisting {
            throw CipherKitError.fileExists(path: request.destinationPath)
        }
        try FileOperations.requireWritableDirectory(for: request.destinationPath, purpose: "the copy is written there, then renamed")
    }

    /// Refuses a source that would not fit in memory three times over (the file, its plaintext
    /// and SQLite's copy of it) in what the kernel says is available.
    ///
    /// - Throws: `CipherKitError.insufficientMemory`.
    static func requireMemory(for path: String) throws {
        let needed = 3 * (FileOperations.size(of: path) ?? 0)
        guard let available = AvailableMemory.bytes(), needed > available else { return }
        throw CipherKitError.insufficientMemory(path: path, needed: needed, available: available)
    }

    /// Refuses a source whose journal holds changes: they are another library's to roll
    /// back. (A WAL's committed frames are read with the file, by `SourceFile`.)
    private static func refuseSideFiles(of path: String) throws {
        if (FileOperations.size(of: path + "-journal") ?? 0) > 0 { throw CipherKitError.hotJournal(path: path) }
    }

    /// An in-memory, read-only database holding `bytes` (whole plaintext pages).
    /// See https://www.sqlite.org/c3ref/deserialize.html
    static func plaintextConnection(_ bytes: [UInt8], path: String) throws -> Connection {
        let connection = try Connection(path: ":memory:", mode: .create)
        var pages = bytes
        defer { SecureBytes.wipe(&pages) }
        // A file in memory has no WAL: page 1 says rollback, as SQLite reads it from a memory file.
        if pages[18] == 2 || pages[19] == 2 { (pages[18], pages[19]) = (1, 1) }
        guard let memory = sqlite3_malloc64(UInt64(pages.count)) else { throw CipherKitError.outOfSpace(path: "memory") }
        pages.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY)
        let code = sqlite3_deserialize(connection.handle, "main", memory.assumingMemoryBound(to: UInt8.self), Int64(pages.count), Int64(pages.count), flags)
        guard code == SQLITE_OK else { throw CipherKitError.database(path: path, error: DatabaseError(code: code, connection: connection.handle)) }
        return connection
    }

    /// Reopens the written copy and compares it with what was read.
    static func verify(_ copy: DatabaseCopy, at temporary: String, request: ExportRequest) throws -> VerificationReport? {
        guard request.verify else { return nil }
        let report = try DatabaseCopier.verify(
            at: temporary, key: copy.destinationKey, settings: copy.destinationSettings, expected: copy.snapshot, logLevel: request.source.logLevel,
            fullIntegrity: request.fullVerification)
        if !report.isOK { throw CipherKitError.verificationFailed(path: request.destinationPath, problems: report.problems) }
        return report
    }
}
