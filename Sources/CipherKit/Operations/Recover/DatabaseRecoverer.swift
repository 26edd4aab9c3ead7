import Foundation

/// Salvages every readable row of a damaged encrypted database into a new one, with no
/// plaintext on any disk: the source is decrypted page by page into a file in memory
/// (`PlaintextImage`; pages that fail their HMAC become zeros and are reported lost),
/// SQLite's own recovery (the `.recover` of a sqlite3 shell, which the caller runs on that
/// memory file and streams back as SQL) reads it, and the SQL runs straight into the new
/// encrypted database, written beside the destination under a temporary name, checked, and
/// renamed into place. See https://www.sqlite.org/recovery.html
public enum DatabaseRecoverer {
    /// `extract` is given the memory file's descriptor and returns the recovery's SQL, a
    /// chunk at a time (nil at its end).
    ///
    /// - Throws: `CipherKitError.fileExists` when the destination exists, what opening the
    ///   source throws but damage, `CipherKitError.database` when the SQL fails, and what
    ///   `extract` throws. On any failure no destination and no temporary file are left.
    public static func recover(_ request: RecoverRequest, extract: (Int32) throws -> () throws -> [UInt8]?) throws -> RecoveryReport {
        let destination = request.destination
        if FileOperations.exists(destination) || FileOperations.isSymbolicLink(destination) { throw CipherKitError.fileExists(path: destination) }
        let codec = try sourceCodec(request.source)
        let image = try PlaintextImage.make(from: request.source.path, codec: codec)
        defer { image.close() }
        let temporary = TemporaryDatabase.path(beside: destination)
        let tables: [TableRowCount]
        do {
            var create = OpenRequest(path: temporary, key: request.destinationKey, settings: request.destinationSettings, mode: .readWrite)
            create.logLevel = request.source.logLevel
            try DatabaseCreator.create(create)
            tables = try CipherKitError.translating(path: destination) { () throws -> [TableRowCount] in
                let connection = try Connection(path: temporary, mode: .readWrite, logLevel: request.source.logLevel)
                try connection.key(request.destinationKey)
                try connection.apply(request.destinationSettings)
                try SQLStreamRunner(connection: connection).run(try extract(image.descriptor))
                let tables = try rowCounts(connection)
                try connection.close()
                return tables
            }
            try FileOperations.sync(temporary)
            try FileOperations.move(temporary, to: destination, replace: false)
        } catch {
            FileOperations.removeDatabase(temporary)
            throw error
        }
        // The rename is the commit: the destination is whole, whatever the folder's sync says.
        do {
            try FileOperations.syncDirectory(of: destination)
        } catch {
            throw CipherKitError.afterCommit(error, path: destination, opensWith: "the destination key (\(request.destinationSettings.summary))")
        }
        return RecoveryReport(pages: image.pages, lostPages: image.lostPages, tables: tables)
    }

    /// The source's page codec: from an open that proves the key, or, when damage stops the
    /// open, from the key and the settings asked for (SQLCipher 4's by default).
    private static func sourceCodec(_ source: OpenRequest) throws -> PageCodec {
        var request = source
        request.mode = .readOnly
        do {
            let opened = try DatabaseOpener.open(request)
            guard let codec = try PageCodec(for: opened) else { throw CipherKitError.cannotDecrypt(path: source.path, failure: .plaintextDatabase) }
            return codec
        } catch CipherKitError.damagedPages {
            guard let key = source.key, let salt = source.settings.salt ?? FileOperations.leadingBytes(of: source.path, count: 16) else {
                throw CipherKitError.cannotDecrypt(path: source.path, failure: .keyRequired)
            }
            return try PageCodec(key: key, salt: salt, settings: source.settings)
        }
    }

    private static func rowCounts(_ connection: Connection) throws -> [TableRowCount] {
        let tables = try connection.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            .compactMap { $0.first?.textValue }
        return try tables.map { table in
            TableRowCount(table: table, rows: Int(try connection.scalar("SELECT count(*) FROM \(SQLIdentifier.quote(table))")?.integerValue ?? 0))
        }
    }
}
