/// Builds a `DatabaseProfile`: opens a database read-only, proves the key, and reads its
/// cipher settings, header fields and schema, with row counts and integrity checks on request.
public enum DatabaseInspector {
    /// Inspects the database `request` names; the request's mode is ignored (always read-only).
    ///
    /// - Throws: what `DatabaseOpener.open` throws, and `CipherKitError.database` when a read fails.
    public static func inspect(_ request: OpenRequest, options: InspectOptions = InspectOptions()) throws -> DatabaseProfile {
        var readOnly = request
        readOnly.mode = .readOnly
        // The check reports a -wal's dropped commits among its problems.
        readOnly.readsPastDroppedCommits = options.checkIntegrity
        let opened = try DatabaseOpener.open(readOnly)
        return try CipherKitError.translating(path: request.path, file: opened.file) {
            var profile = try profile(of: opened, encrypted: request.key != nil, options: options)
            profile.detectedFormat = opened.format
            profile.formatAttempts = opened.attempts
            profile.searchSeconds = opened.searchSeconds
            profile.hotJournal = opened.readPastHotJournal
            return profile
        }
    }

    /// The cipher settings in effect on a keyed connection, every field filled.
    ///
    /// `compatibility` is set only when the settings are exactly one version's defaults.
    public static func cipherSettings(of connection: Connection, schema: String = "main") throws -> CipherSettings {
        func pragma(_ name: String) throws -> String? { try connection.pragmaText("\(schema).\(name)") }
        var settings = CipherSettings(
            pageSize: try pragma("cipher_page_size").flatMap { Int($0) },
            kdfIterations: try pragma("kdf_iter").flatMap { Int($0) },
            hmacAlgorithm: try pragma("cipher_hmac_algorithm").flatMap(HMACAlgorithm.init(name:)),
            kdfAlgorithm: try pragma("cipher_kdf_algorithm").flatMap(KDFAlgorithm.init(name:)),
            useHMAC: try pragma("cipher_use_hmac").flatMap { Int($0) }.map { $0 != 0 }
        )
        // The pragma answers a deprecation notice first, then the value; the default
        // (little-endian) is left out.
        settings.hmacPageNumber = try connection.pragmaTexts("\(schema).cipher_hmac_pgno").last.flatMap(HMACPageNumber.init(name:))
            .flatMap { $0 == .littleEndian ? nil : $0 }
        // The default (2) is left out, as the byte order's is.
        settings.fastKDFIterations = try pragma("fast_kdf_iter").flatMap { Int($0) }.flatMap { $0 == 2 ? nil : $0 }
        // SQLCipher's answer is the process's current mask, not this connection's.
        settings.hmacSaltMask = connection.saltMask == SaltMaskGate.defaultMask ? nil : connection.saltMask
        settings.plaintextHeaderSize = try pragma("cipher_plaintext_header_size").flatMap { Int($0) }
        settings.salt = try pragma("cipher_salt").flatMap(Hex.decode)
        settings.compatibility = settings.matchingCompatibility
        return settings
    }

    private static func profile(of opened: OpenedDatabase, encrypted: Bool, options: InspectOptions) throws -> DatabaseProfile {
        let connection = opened.connection, file = opened.file
        let schema = try connection.rows("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        func count(_ type: String) -> Int { schema.filter { $0.first == .text(type) }.count }
        let tables = schema.filter { $0.first == .text("table") }.compactMap { $0.last?.textValue }

        var profile = DatabaseProfile(
            path: file.path,
            fileSize: file.size,
            encrypted: encrypted,
            cipher: encrypted ? try cipherSettings(of: connection) : nil,
            pageSize: try connection.pragmaInteger("page_size") ?? 0,
            pageCount: try connection.pragmaInteger("page_count") ?? 0,
            freelistCount: try connection.pragmaInteger("freelist_count") ?? 0,
            journalMode: try journalMode(of: opened),
            encoding: try connection.pragmaText("encoding") ?? "unknown",
            userVersion: try connection.pragmaInteger("user_version") ?? 0,
            applicationID: try connection.pragmaInteger("application_id") ?? 0,
            autoVacuum: autoVacuumName(try connection.pragmaInteger("auto_vacuum") ?? 0),
            tableCount: count("table"),
            indexCount: count("index"),
            viewCount: count("view"),
            triggerCount: count("trigger")
        )
        // The check first: on a damaged file it names the pages, where counting would stop at
        // the first one with SQLite's bare "malformed"; counts are then left out.
        if options.checkIntegrity {
            profile.integrity = try IntegrityReport.run(on: opened)
        }
        if options.countRows, profile.integrity?.isOK ?? true {
            profile.rowCounts = try tables.sorted().map { table in
                let rows = try connection.scalar("SELECT count(*) FROM \(SQLIdentifier.quote(table))")?.integerValue ?? 0
                return TableRowCount(table: table, rows: Int(rows))
            }
        }
        return profile
    }

    /// The journal mode. A connection that reads the file alone (under its own `ReaderLock`)
    /// answers "delete" whatever the header records, so only then is page 1 read for it:
    /// decrypting it may derive the key once more.
    private static func journalMode(of opened: OpenedDatabase) throws -> String {
        let mode = try opened.connection.pragmaText("journal_mode") ?? "unknown"
        guard opened.connection.readerLock != nil, opened.headerRecordsWAL == true else { return mode }
        return "wal"
    }

    private static func autoVacuumName(_ value: Int) -> String {
        switch value {
        case 1: return "full"
        case 2: return "incremental"
        default: return "none"
        }
    }
}
