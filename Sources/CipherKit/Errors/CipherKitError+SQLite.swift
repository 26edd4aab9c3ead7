import CSQLCipher

/// The one table from SQLite's result codes to CipherKit's errors.
/// See https://www.sqlite.org/rescode.html
extension CipherKitError {
    /// Runs `body`, turning SQLite's errors into `CipherKitError` for the database at `path`
    /// (whose probe, when known, is `file`).
    public static func translating<T>(path: String, file: DatabaseFile? = nil, _ body: () throws -> T) rethrows -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw translate(error, path: path, file: file)
        }
    }

    /// The `CipherKitError` for a SQLite error on the database at `path`.
    static func translate(_ error: DatabaseError, path: String, file: DatabaseFile?) -> CipherKitError {
        if error.isOutOfSpace { return .outOfSpace(path: path) }
        switch error.resultCode {
        case SQLITE_NOTADB:
            return .cannotDecrypt(path: path, failure: decryptFailure(for: file))
        case SQLITE_BUSY, SQLITE_LOCKED:
            return .busy(path: path)
        case SQLITE_INTERRUPT:
            return .cancelled(path: path)
        case SQLITE_CORRUPT:
            return .damaged(path: path)
        // SQLITE_READONLY_ROLLBACK, a macro Swift does not import.
        case SQLITE_READONLY where error.extendedResultCode == SQLITE_READONLY | (3 << 8):
            return .hotJournal(path: path)
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY:
            return .fileAccess(path: path, reason: error.message)
        default:
            return .database(path: path, error: error)
        }
    }

    /// What "file is not a database" means for `file`: with a plaintext header, the salt
    /// may be the cause as well as the key.
    static func decryptFailure(for file: DatabaseFile?) -> DecryptFailure {
        file?.kind == .plaintextHeader ? .wrongKeySettingsOrSalt : .wrongKeyOrSettings
    }
}
