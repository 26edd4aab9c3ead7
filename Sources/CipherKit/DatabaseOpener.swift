import CSQLCipher

/// Opens an existing database with a key and settings, proves the key by reading the
/// schema, and turns SQLite's single "file is not a database" into the cause the file shows.
public enum DatabaseOpener {
    /// Opens `request.path`, which must exist.
    ///
    /// - Returns: the verified connection and what the probe saw of the file.
    /// - Throws: `CipherKitError` (`fileNotFound`, `notARegularFile`, `cannotDecrypt`, `busy`,
    ///   `fileAccess`, `database`), `CipherSettingsError` for settings out of range.
    public static func open(_ request: OpenRequest) throws -> (Connection, DatabaseFile) {
        try open(request, checked: try precheck(request))
    }

    /// `open` for a file whose probe `precheck` has already accepted.
    static func open(_ request: OpenRequest, checked file: DatabaseFile) throws -> (Connection, DatabaseFile) {
        let path = request.path
        let connection = try translating(path: path, file: file) {
            try Connection(path: path, mode: request.mode, busyTimeoutMilliseconds: request.busyTimeoutMilliseconds, logLevel: request.logLevel)
        }
        try translating(path: path, file: file) {
            if let key = request.key {
                try connection.key(key)
                try connection.apply(request.settings)
            }
        }
        try verify(connection, request: request, file: file)
        return (connection, file)
    }

    /// Opens like `open`, but derives a passphrase's key once (`KeyDerivation`) and opens
    /// with the raw key, which later reopens reuse without deriving again.
    ///
    /// - Returns: the connection, the probe, and the key to reuse: the derived raw key when it
    ///   opened the database (which proves the derivation), else the request's own key.
    public static func openDerivingOnce(_ request: OpenRequest, probed: DatabaseFile? = nil) throws -> (Connection, DatabaseFile, KeyMaterial?) {
        let file = try precheck(request, probed: probed)
        if let key = request.key, key.kind == .passphrase,
           let salt = request.settings.salt ?? (file.kind == .opaque ? file.firstBytes : nil), salt.count == 16,
           let raw = try? KeyDerivation.rawKey(for: key, salt: salt, settings: request.settings) {
            var derived = request
            derived.key = raw
            if let (connection, file) = try? open(derived, checked: file) {
                return (connection, file, raw)
            }
        }
        let (connection, opened) = try open(request, checked: file)
        return (connection, opened, request.key)
    }

    /// Checks what the file's bytes show against the request, before any key is tried.
    ///
    /// - Throws: `CipherKitError` for a missing, non-regular, empty or short file, a plaintext
    ///   file given a key, and an encrypted file given none.
    /// `probed` is the probe of the file when the caller already made one.
    public static func precheck(_ request: OpenRequest, probed: DatabaseFile? = nil) throws -> DatabaseFile {
        try request.settings.validate()
        let file = try probed ?? DatabaseFile.probe(request.path)
        let path = request.path
        switch file.kind {
        case .missing:
            throw CipherKitError.fileNotFound(path: path)
        case .notRegularFile:
            throw CipherKitError.notARegularFile(path: path)
        case .empty:
            throw CipherKitError.cannotDecrypt(path: path, failure: .emptyFile)
        case .tooShort:
            throw CipherKitError.cannotDecrypt(path: path, failure: .tooShort(bytes: file.size))
        case .plaintext:
            if request.key != nil {
                throw CipherKitError.cannotDecrypt(path: path, failure: .plaintextDatabase)
            }
        case .plaintextHeader:
            if request.key == nil { throw CipherKitError.cannotDecrypt(path: path, failure: .keyRequired) }
            if (request.settings.plaintextHeaderSize ?? 0) == 0 {
                throw CipherKitError.cannotDecrypt(path: path, failure: .plaintextHeader)
            }
        case .opaque:
            if request.key == nil { throw CipherKitError.cannotDecrypt(path: path, failure: .keyRequired) }
        }
        return file
    }

    /// Reads the schema of `schema` on `connection` to prove the key of the database the
    /// request names, and turns a failure into the cause the file shows.
    static func verify(_ connection: Connection, request: OpenRequest, file: DatabaseFile, schema: String = "main") throws {
        let path = request.path
        do {
            _ = try connection.scalar("SELECT count(*) FROM \(schema).sqlite_master")
        } catch let error as DatabaseError where error.resultCode == SQLITE_ERROR && request.key != nil {
            // SQLCipher reports some decrypt failures (a plaintext header read with the wrong
            // salt) as a plain SQL error on the first read of the schema.
            throw CipherKitError.cannotDecrypt(path: path, failure: decryptFailure(for: file))
        } catch let error as DatabaseError {
            throw translate(error, path: path, file: file)
        }
    }

    /// Runs `body`, turning SQLite's errors into `CipherKitError` for a database at `path`.
    public static func translating<T>(path: String, file: DatabaseFile? = nil, _ body: () throws -> T) rethrows -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw translate(error, path: path, file: file)
        }
    }

    private static func decryptFailure(for file: DatabaseFile?) -> DecryptFailure {
        file?.kind == .plaintextHeader ? .wrongKeySettingsOrSalt : .wrongKeyOrSettings
    }

    /// The `CipherKitError` for a SQLite error on the database at `path`.
    static func translate(_ error: DatabaseError, path: String, file: DatabaseFile?) -> Error {
        switch error.resultCode {
        case SQLITE_NOTADB:
            return CipherKitError.cannotDecrypt(path: path, failure: decryptFailure(for: file))
        case SQLITE_BUSY, SQLITE_LOCKED:
            return CipherKitError.busy(path: path)
        case SQLITE_INTERRUPT:
            return CipherKitError.cancelled(path: path)
        // SQLITE_READONLY_ROLLBACK, a macro Swift does not import.
        case SQLITE_READONLY where error.extendedResultCode == SQLITE_READONLY | (3 << 8):
            return CipherKitError.hotJournal(path: path)
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY:
            return CipherKitError.fileAccess(path: path, reason: error.message)
        default:
            return CipherKitError.database(path: path, error: error)
        }
    }
}
