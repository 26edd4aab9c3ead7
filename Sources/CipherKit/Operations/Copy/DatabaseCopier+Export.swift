import CSQLCipher

extension DatabaseCopier {
    /// Writes the copy row by row with `sqlcipher_export()`, in one transaction.
    ///
    /// The new file is attached to the source's connection as `dest` (`ATTACH … KEY ?`, the
    /// key bound, never in the SQL text) and given its settings before anything is written,
    /// as SQLCipher documents for a new attached database. What `sqlcipher_export()` drops is
    /// carried over: `auto_vacuum` (set before anything is written), `user_version`,
    /// `application_id` and WAL mode. Closes the source's connection.
    /// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#sqlcipher_export
    static func exportRows(
        from opened: OpenedDatabase, source: OpenRequest, sourceSettings: CipherSettings?, to target: CopyTarget, token: CancellationToken
    ) throws -> DatabaseCopy {
        let connection = opened.connection
        // The source's keys are derived; the new file's are derived under its own mask.
        let mask = target.settings?.hmacSaltMask ?? SaltMaskGate.defaultMask
        let copy: DatabaseCopy = try SaltMaskGate.shared.derive(mask, on: connection) { try token.interrupting(connection) {
            try attach(target, to: opened)
            return try CipherKitError.translating(path: source.path, file: opened.file) {
                let autoVacuum = try connection.pragmaInteger("main.auto_vacuum") ?? 0
                try connection.execute("PRAGMA dest.auto_vacuum = \(autoVacuum)")
                try token.check(source.path)
                try connection.execute("BEGIN")
                do {
                    var snapshot = try DatabaseSnapshot.read(from: connection, countRows: target.countRows)
                    if let wal = target.wal { snapshot.journalMode = wal ? "wal" : "delete" }
                    _ = try connection.scalar("SELECT sqlcipher_export('dest')")
                    try connection.execute("PRAGMA dest.user_version = \(snapshot.userVersion)")
                    try connection.execute("PRAGMA dest.application_id = \(snapshot.applicationID)")
                    try token.check(source.path)
                    try connection.execute("COMMIT")
                    if snapshot.journalMode.lowercased() == "wal" {
                        _ = try connection.pragmaText("dest.journal_mode = WAL")
                    }
                    let destinationSettings = target.key == nil
                        ? nil : try DatabaseInspector.cipherSettings(of: connection, schema: "dest").with(\.hmacSaltMask, target.settings?.hmacSaltMask)
                    let pageSize = try connection.pragmaInteger("dest.page_size") ?? 4096
                    return DatabaseCopy(
                        snapshot: snapshot, sourceSettings: sourceSettings, destinationSettings: destinationSettings, pageSize: pageSize,
                        destinationKey: target.key, sourceFormat: opened.format, sourceAttempts: opened.attempts, method: .sqlcipherExport)
                } catch {
                    if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
                    if let error = error as? DatabaseError, error.resultCode == SQLITE_INTERRUPT { throw CipherKitError.cancelled(path: source.path) }
                    throw error
                }
            }
        } }
        try CipherKitError.translating(path: target.path) {
            try connection.execute("DETACH DATABASE dest")
            try connection.close()
        }
        return copy
    }

    /// Attaches the new file as `dest` with the target's key and settings.
    /// A source read as a snapshot (`SnapshotVFS`) gets the file through the default VFS.
    private static func attach(_ target: CopyTarget, to opened: OpenedDatabase) throws {
        let connection = opened.connection
        try CipherKitError.translating(path: target.path) {
            let attach = try connection.prepare("ATTACH DATABASE ? AS dest KEY ?")
            try attach.bind(.text(opened.untouched == nil ? target.path : SQLiteURI.defaultVFS(target.path)), at: 1)
            try attach.bind(key: target.key, at: 2)
            try attach.step()
            if target.key != nil {
                for pragma in (target.settings ?? CipherSettings()).pragmas(schema: "dest") { try connection.execute(pragma) }
            }
        }
    }
}
