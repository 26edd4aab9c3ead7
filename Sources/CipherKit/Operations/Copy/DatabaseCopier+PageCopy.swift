import CSQLCipher

extension DatabaseCopier {
    /// Pages copied per backup step; the token is checked between steps.
    static let pagesPerStep: Int32 = 1024

    /// Whether a page copy can write `destination` from a database with `source` settings.
    ///
    /// SQLCipher (4.3 and later) allows a backup between two encrypted databases only when
    /// both have the same page size and the same reserved bytes per page (the IV and HMAC).
    static func pagesFit(source: CipherSettings, destination: CipherSettings) -> Bool {
        guard let sourcePageSize = source.pageSize, sourcePageSize == destination.pageSize else { return false }
        guard source.useHMAC != false, destination.useHMAC != false else { return false }
        return source.reservedBytes == destination.reservedBytes
            && (source.plaintextHeaderSize ?? 0) == 0 && (destination.plaintextHeaderSize ?? 0) == 0
    }

    /// Writes the copy page by page with SQLite's backup API: each page is decrypted with the
    /// source's key and encrypted with the target's, nothing is re-inserted, so indexes are
    /// not rebuilt and the header (user_version, application_id, auto_vacuum) comes across as
    /// it is. The snapshot is read in the same read transaction as the pages, so it describes
    /// exactly what was copied. Closes the source's connection.
    /// See https://www.sqlite.org/backup.html
    static func copyPages(_ job: CopyJob, key: KeyMaterial, settings: CipherSettings) throws -> DatabaseCopy {
        let (opened, source, target, token) = (job.opened, job.source, job.target, job.token)
        let connection = opened.connection
        let destination = try CipherKitError.translating(path: target.path) {
            let destination = try Connection(path: target.path, mode: .readWrite, logLevel: source.logLevel, vfs: CoalescingVFS.name)
            try destination.key(key)
            try destination.apply(settings)
            return destination
        }
        defer { try? destination.close() }
        var snapshot: DatabaseSnapshot = try token.interrupting(connection) {
            try CipherKitError.translating(path: source.path, file: opened.file) {
                try connection.execute("BEGIN")
                defer { if !connection.isAutocommit { try? connection.execute("ROLLBACK") } }
                let snapshot = try DatabaseSnapshot.read(from: connection, countRows: target.countRows)
                try token.check(source.path)
                do {
                    // The new file's keys are derived at its first write, under its own mask.
                    try SaltMaskGate.shared.derive(destination.saltMask, on: destination) {
                        try backUp(from: connection, to: destination, token: token, path: source.path)
                    }
                } catch let error as DatabaseError where error.resultCode == SQLITE_INTERRUPT {
                    throw CipherKitError.cancelled(path: source.path)
                } catch let error as DatabaseError {
                    throw CipherKitError.translate(error, path: target.path, file: nil)
                }
                return snapshot
            }
        }
        if let wal = target.wal { snapshot.journalMode = wal ? "wal" : "delete" }
        let (pageSize, destinationSettings) = try CipherKitError.translating(path: target.path) {
            // The header came across with the pages: set the journal mode the copy should have.
            _ = try destination.pragmaText("journal_mode = \(snapshot.journalMode.lowercased() == "wal" ? "WAL" : "DELETE")")
            let pageSize = try destination.pragmaInteger("page_size") ?? 4096
            let settings = try DatabaseInspector.cipherSettings(of: destination)
            try destination.close()
            try connection.close()
            return (pageSize, settings)
        }
        return DatabaseCopy(
            snapshot: snapshot, sourceSettings: job.sourceSettings, destinationSettings: destinationSettings, pageSize: pageSize,
            destinationKey: key, sourceFormat: opened.format, sourceAttempts: opened.attempts, method: .pageCopy)
    }

    /// Copies every page of `source`'s main database into `destination`'s, which must be
    /// keyed and empty, in steps, checking `token` between them.
    ///
    /// - Throws: `DatabaseError` from the backup, `CipherKitError.cancelled` when cancelled.
    private static func backUp(from source: Connection, to destination: Connection, token: CancellationToken, path: String) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            throw DatabaseError(code: sqlite3_errcode(destination.handle), connection: destination.handle)
        }
        var code = SQLITE_OK
        repeat {
            if token.isCancelled {
                sqlite3_backup_finish(backup)
                throw CipherKitError.cancelled(path: path)
            }
            code = sqlite3_backup_step(backup, pagesPerStep)
        } while code == SQLITE_OK
        let finished = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE, finished == SQLITE_OK else {
            // The step's own code says why; finish repeats it on the destination.
            throw DatabaseError(code: code == SQLITE_DONE ? finished : code, connection: destination.handle)
        }
    }
}
