import CSQLCipher
import Glibc

/// An error reported by SQLite: its result codes, its message and the SQL that failed.
///
/// Bound values and key material are never part of it: statements bind them and
/// keys go through `sqlite3_key_v2`, so neither appears in `sql` or `message`.
/// See https://www.sqlite.org/rescode.html
public struct DatabaseError: CipherKitFailure, Equatable {
    /// The primary result code (the low eight bits of the extended code).
    public let resultCode: Int32
    /// The extended result code.
    public let extendedResultCode: Int32
    /// SQLite's own message, lowercase and without a final period.
    public let message: String
    /// The SQL being prepared or run, when there was one.
    public let sql: String?
    /// The operating system's error number behind an I/O failure (`sqlite3_system_errno`), or 0.
    public let systemErrno: Int32

    init(extendedCode: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.resultCode = extendedCode & 0xFF
        self.extendedResultCode = extendedCode
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        // sqlite3_extended_errcode reports the last failure on the connection, which is
        // this one only when its primary code agrees.
        let resolved = (extended & 0xFF) == (code & 0xFF) ? extended : code
        let text: String
        if let connection, let pointer = sqlite3_errmsg(connection), (extended & 0xFF) == (code & 0xFF) {
            text = String(cString: pointer)
        } else {
            text = String(cString: sqlite3_errstr(code))
        }
        let systemErrno = connection.map { sqlite3_system_errno($0) } ?? 0
        self.init(extendedCode: resolved, message: text, sql: sql, systemErrno: systemErrno)
    }

    /// Whether the failure means the database file could not be decrypted or is not a database.
    public var isNotADatabase: Bool { resultCode == SQLITE_NOTADB }

    /// Whether a write failed for want of space: a full disk (SQLITE_FULL, ENOSPC), a quota,
    /// or a file-size limit (EFBIG, which SQLite reports as a write I/O error). A failure
    /// inside an SQL function such as `sqlcipher_export()` comes back as SQLITE_ERROR with
    /// the I/O error's message, and the system error number still set.
    public var isOutOfSpace: Bool {
        if resultCode == SQLITE_FULL || (resultCode == SQLITE_ERROR && message == "database or disk is full") { return true }
        guard [ENOSPC, EFBIG, EDQUOT].contains(systemErrno) else { return false }
        return resultCode == SQLITE_IOERR || (resultCode == SQLITE_ERROR && message == "disk I/O error")
    }

    /// Whether a damaged page may lie behind the failure: SQLite found one malformed, or
    /// SQLCipher's codec failed one, after which its pager answers with the bare message of
    /// SQLITE_ERROR ("SQL logic error"), which an error in the SQL itself never has.
    public var mayMeanDamage: Bool {
        if resultCode == SQLITE_CORRUPT || resultCode == SQLITE_NOTADB { return true }
        return resultCode == SQLITE_ERROR && message == String(cString: sqlite3_errstr(SQLITE_ERROR))
    }

    /// Whether the failure means another connection holds a lock.
    public var isBusy: Bool { resultCode == SQLITE_BUSY || resultCode == SQLITE_LOCKED }

    /// A bare SQLite error names no file; `CipherKitError.translate` adds the path.
    public var path: String? { nil }

    public var reason: FailureReason {
        if isBusy { return .busy }
        // A page that fails its HMAC or is malformed, met while a statement runs.
        if resultCode == SQLITE_CORRUPT { return .damaged }
        return isNotADatabase ? .notADatabase : .sqliteError
    }

    public var description: String {
        "\(message) (code \(extendedResultCode))"
    }

    /// Matches an error against a primary result code, so that `case SQLITE_BUSY` works in a catch.
    public static func ~= (code: Int32, error: DatabaseError) -> Bool {
        error.resultCode == code
    }
}
