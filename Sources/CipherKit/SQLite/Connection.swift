import CSQLCipher

/// A connection to one database file through SQLCipher.
///
/// It owns its `sqlite3` handle: a failed open closes it at once, `close()` reports a
/// close that cannot finish, and `deinit` closes it on every other path.
/// See https://www.sqlite.org/c3ref/open.html and https://www.zetetic.net/sqlcipher/sqlcipher-api/
public final class Connection {
    /// The path the connection was opened with.
    public let path: String
    /// SQLCipher's log level for this process, set again after each key (keying resets it).
    public private(set) var logLevel: CipherLogLevel
    private(set) var handle: OpaquePointer?
    /// The lock a connection without locks of its own reads under (`ReaderLock`); released
    /// with the connection.
    var readerLock: ReaderLock?
    /// The HMAC salt mask this connection's keys are derived under (`SaltMaskGate`).
    private(set) var saltMask = SaltMaskGate.defaultMask
    /// How long the connection waits for another connection's locks.
    private(set) var busyTimeoutMilliseconds = 0

    /// Opens `path` with `mode`, waiting up to `busyTimeoutMilliseconds` for locks.
    ///
    /// SQLCipher's own logging is set to `logLevel` before anything else, and the first
    /// connection in the process checks that the SQLCipher codec is really linked.
    /// `uriFilenames` lets ATTACH take `file:` URIs (to attach a file read-only); the
    /// connection's own path must then be absolute. `vfs` names a registered SQLite VFS
    /// (nil: the default one).
    /// - Throws: `DatabaseError` when SQLite cannot open the file, `CipherKitError.codecUnavailable`
    ///   when the linked library has no SQLCipher 4 codec.
    public init(
        path: String, mode: OpenMode, busyTimeoutMilliseconds: Int = 0, logLevel: CipherLogLevel = .none, uriFilenames: Bool = false,
        vfs: String? = nil
    ) throws {
        self.path = path
        self.logLevel = logLevel
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        let opened = try Self.open(path, flags: mode.flags | (uriFilenames ? SQLITE_OPEN_URI : 0), vfs: vfs)
        handle = opened
        sqlite3_busy_timeout(opened, Int32(clamping: max(0, busyTimeoutMilliseconds)))
        try CodecGuard.shared.check(self)
        try execute("PRAGMA cipher_log_level = \(logLevel.rawValue)")
    }

    /// An empty in-memory database that never holds a secret (`LibraryVersions` keys it with
    /// a fixed key of zeros): the codec is checked, but SQLCipher's memory security is left
    /// for the first real connection to turn on, since locking and wiping each allocation
    /// was most of the time a report of the versions took.
    init(probe: Void) throws {
        path = ":memory:"
        logLevel = .none
        handle = try Self.open(path, flags: OpenMode.create.flags, vfs: nil)
        try CodecGuard.shared.check(self, securingMemory: false)
        try execute("PRAGMA cipher_log_level = \(logLevel.rawValue)")
    }

    private static func open(_ path: String, flags: Int32, vfs: String?) throws -> OpaquePointer {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, flags, vfs)
        guard code == SQLITE_OK, let opened else {
            let error = DatabaseError(code: code, connection: opened)
            sqlite3_close_v2(opened)
            throw error
        }
        sqlite3_extended_result_codes(opened, 1)
        return opened
    }

    /// Whether closing the last connection to a WAL database checkpoints it and removes its
    /// WAL (SQLite's default); off for a connection that must leave every file as it was.
    /// Nothing for a connection closed already.
    public func setCheckpointOnClose(_ enabled: Bool) {
        guard let handle else { return }
        _ = csqlcipher_set_checkpoint_on_close(handle, enabled ? 1 : 0)
    }

    /// Sets SQLCipher's log level for the process, and for this connection's later keys.
    public func setLogLevel(_ level: CipherLogLevel) throws {
        logLevel = level
        try execute("PRAGMA cipher_log_level = \(level.rawValue)")
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Closes the connection; later calls do nothing.
    ///
    /// - Throws: `DatabaseError` (SQLITE_BUSY) when statements are still open.
    public func close() throws {
        guard let handle else { return }
        let code = sqlite3_close(handle)
        guard code == SQLITE_OK else { throw DatabaseError(code: code, connection: handle) }
        self.handle = nil
    }

    /// Gives the connection its key with `sqlite3_key_v2`. SQLCipher accepts any key here;
    /// a wrong one shows only when a page is read (see `verifyReadable`).
    ///
    /// The first key in a process initializes SQLCipher, which resets its log level, so the
    /// level is set again here, before anything is decrypted.
    public func key(_ key: KeyMaterial) throws {
        let code = key.codecBytes.withUnsafeBytes { bytes in
            sqlite3_key_v2(handle, "main", bytes.baseAddress, Int32(bytes.count))
        }
        try check(code)
        try execute("PRAGMA cipher_log_level = \(logLevel.rawValue)")
    }

    /// Changes the key of an open, keyed database with `sqlite3_rekey_v2`.
    ///
    /// SQLCipher may answer OK without changing anything (for example while another process
    /// holds a read lock): only reopening with the new key proves a rekey.
    public func rekey(_ key: KeyMaterial) throws {
        let code = try SaltMaskGate.shared.derive(saltMask, on: self) {
            key.codecBytes.withUnsafeBytes { bytes in
                sqlite3_rekey_v2(handle, "main", bytes.baseAddress, Int32(bytes.count))
            }
        }
        try check(code)
    }

    /// Applies cipher settings; call it after `key` and before the first read.
    ///
    /// - Throws: `CipherSettingsError` for a value out of range, `DatabaseError` when SQLCipher refuses one.
    public func apply(_ settings: CipherSettings) throws {
        try settings.validate()
        saltMask = settings.hmacSaltMask ?? SaltMaskGate.defaultMask
        try SaltMaskGate.shared.derive(saltMask, on: self) {
            for pragma in settings.pragmas {
                try execute(pragma)
            }
            // SQLCipher derives at the first read; under the gate that must be now. A failure
            // shows again at the caller's own first read.
            _ = try? scalar("SELECT count(*) FROM sqlite_master")
        }
    }

    /// Reads the schema, which makes SQLCipher derive the key and decrypt page 1.
    ///
    /// - Throws: `DatabaseError` with `SQLITE_NOTADB` for a wrong key, wrong settings or a
    ///   file that is not a database; `SQLITE_BUSY` when a lock blocks the read.
    public func verifyReadable() throws {
        _ = try scalar("SELECT count(*) FROM sqlite_master")
    }

    /// Whether `"text"` may stand for a string where no column has that name (SQLite's
    /// legacy default). Built queries turn it off, so a quoted name is always a name.
    /// See https://www.sqlite.org/quirks.html#double_quoted_string_literals_are_accepted
    public func setDoubleQuotedStrings(_ enabled: Bool) throws {
        try check(csqlcipher_set_double_quoted_strings(handle, enabled ? 1 : 0))
    }

    /// The rows changed by INSERT, UPDATE and DELETE on this connection since it opened.
    public var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Prepares the first statement of `sql`, which may hold several.
    ///
    /// - Returns: the statement (nil when `sql` holds only blanks and comments) and the
    ///   text after it.
    /// - Throws: `DatabaseError` when the first statement does not compile.
    public func prepareFirst(of sql: String) throws -> (Statement?, rest: String) {
        var utf8 = Array(sql.utf8)
        utf8.append(0)
        return try utf8.withUnsafeBufferPointer { buffer in
            let start = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var statement: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(handle, start, Int32(buffer.count - 1), &statement, &tail)
            let consumed = tail.map { start.distance(to: $0) } ?? (buffer.count - 1)
            let text = String(decoding: buffer[0..<consumed], as: UTF8.self)
            let rest = String(decoding: buffer[consumed..<(buffer.count - 1)], as: UTF8.self)
            guard code == SQLITE_OK else {
                sqlite3_finalize(statement)
                throw DatabaseError(code: code, connection: handle, sql: text)
            }
            return (statement.map { Statement(connection: self, handle: $0, sql: text) }, rest)
        }
    }

    /// Prepares one statement.
    public func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            if code == SQLITE_OK {
                throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "no statement in SQL text", sql: sql)
            }
            throw DatabaseError(code: code, connection: handle, sql: sql)
        }
        return Statement(connection: self, handle: statement, sql: sql)
    }

    /// Runs SQL text that may hold several statements, ignoring any rows.
    public func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw DatabaseError(code: code, connection: handle, sql: sql) }
    }

    /// The first column of the first row of one statement, or nil when it returns no row.
    public func scalar(_ sql: String, arguments: [DatabaseValue] = []) throws -> DatabaseValue? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// Every row of one statement.
    public func rows(_ sql: String, arguments: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        return try statement.allRows()
    }

    /// The text of the first column of each row of a PRAGMA.
    public func pragmaTexts(_ name: String) throws -> [String] {
        try rows("PRAGMA \(name)").compactMap { row in
            switch row.first {
            case .text(let text): return text
            case .integer(let value): return String(value)
            case .real(let value): return String(value)
            default: return nil
            }
        }
    }

    /// The first value of a PRAGMA as text, or nil when it returns nothing.
    public func pragmaText(_ name: String) throws -> String? {
        try pragmaTexts(name).first
    }

    /// The first value of a PRAGMA as an integer, or nil.
    public func pragmaInteger(_ name: String) throws -> Int? {
        try pragmaText(name).flatMap { Int($0) }
    }

    /// Makes the SQL running on this connection stop with SQLITE_INTERRUPT; safe from any thread.
    public func interrupt() {
        sqlite3_interrupt(handle)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Whether the connection is in autocommit mode (no transaction open).
    public var isAutocommit: Bool { handle.map { sqlite3_get_autocommit($0) != 0 } ?? true }

    /// Whether the main database has a write transaction open at the B-tree level, which
    /// `sqlite3_get_autocommit` does not see: one that `sqlite3_rekey_v2` began and failed to commit.
    public var holdsWriteTransaction: Bool { handle.map { sqlite3_txn_state($0, "main") == SQLITE_TXN_WRITE } ?? false }

    /// Copies what it can of the WAL into the database (SQLITE_CHECKPOINT_PASSIVE), without
    /// the schema that a PRAGMA would read; returns how many frames the WAL holds.
    public func checkpointPassively() throws -> Int {
        var frames: Int32 = 0, copied: Int32 = 0
        try check(sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_PASSIVE, &frames, &copied))
        return Int(frames)
    }

    /// Whether `close()` has run.
    public var isClosed: Bool { handle == nil }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw DatabaseError(code: code, connection: handle) }
    }
}
