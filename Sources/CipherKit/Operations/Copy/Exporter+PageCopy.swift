import CSQLCipher

extension Exporter {
    /// Writes the copy with `PageCopy` (the backup API) from the opened source `connection`
    /// into the new file at `temporary`, keyed with `key` and `settings`: the path for a
    /// change of key, salt or KDF that keeps the page size and the reserved bytes. The
    /// snapshot is read in the same read transaction as the pages, so it describes exactly
    /// what was copied. The caller removes `temporary` when this throws.
    static func copyPages(
        from connection: Connection, opened: OpenedDatabase, source: OpenRequest, sourceSettings: CipherSettings, to temporary: String,
        key: KeyMaterial, settings: CipherSettings, wal: Bool?, countRows: Bool, token: CancellationToken
    ) throws -> Copy {
        let destination = try DatabaseOpener.translating(path: temporary) {
            let destination = try Connection(path: temporary, mode: .readWrite, logLevel: source.logLevel, vfs: CoalescingVFS.name)
            try destination.key(key)
            try destination.apply(settings)
            return destination
        }
        defer { try? destination.close() }
        var snapshot: DatabaseSnapshot = try token.interrupting(connection) {
            try DatabaseOpener.translating(path: source.path, file: opened.file) {
                try connection.execute("BEGIN")
                defer { if !connection.isAutocommit { try? connection.execute("ROLLBACK") } }
                let snapshot = try DatabaseSnapshot.read(from: connection, countRows: countRows)
                try token.check(source.path)
                do {
                    try PageCopy.run(from: connection, to: destination, token: token, path: source.path)
                } catch let error as DatabaseError where error.resultCode == SQLITE_INTERRUPT {
                    throw CipherKitError.cancelled(path: source.path)
                } catch let error as DatabaseError {
                    throw DatabaseOpener.translate(error, path: temporary, file: nil)
                }
                return snapshot
            }
        }
        if let wal { snapshot.journalMode = wal ? "wal" : "delete" }
        let pageSize: Int = try DatabaseOpener.translating(path: temporary) {
            // The header came across with the pages: set the journal mode the copy should have.
            _ = try destination.pragmaText("journal_mode = \(snapshot.journalMode.lowercased() == "wal" ? "WAL" : "DELETE")")
            return try destination.pragmaInteger("page_size") ?? 4096
        }
        let destinationSettings = try DatabaseOpener.translating(path: temporary) { try DatabaseInspector.cipherSettings(of: destination) }
        try DatabaseOpener.translating(path: temporary) {
            try destination.close()
            try connection.close()
        }
        try FileOperations.sync(temporary)
        return Copy(
            snapshot: snapshot, sourceSettings: sourceSettings, destinationSettings: destinationSettings, pageSize: pageSize,
            destinationKey: key, sourceFormat: opened.format, sourceAttempts: opened.attempts, method: .pageCopy)
    }
}
