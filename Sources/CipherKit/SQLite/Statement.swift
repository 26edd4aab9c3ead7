import CSQLCipher

/// A prepared statement. It owns its `sqlite3_stmt` and finalizes it in `deinit`.
///
/// See https://www.sqlite.org/c3ref/stmt.html
public final class Statement {
    private var handle: OpaquePointer?
    /// The connection the statement belongs to; kept alive as long as the statement.
    public let connection: Connection
    /// The SQL text of this statement.
    public let sql: String

    init(connection: Connection, handle: OpaquePointer, sql: String) {
        self.connection = connection
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The number of result columns.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of each result column.
    public var columnNames: [String] {
        (0..<Int32(columnCount)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    /// The number of parameters the statement takes.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// The name of parameter `index` (1-based) with its prefix (`:a`, `@a`, `$a`), or nil for `?`.
    public func parameterName(at index: Int) -> String? {
        sqlite3_bind_parameter_name(handle, Int32(index)).map { String(cString: $0) }
    }

    /// The 1-based index of a named parameter (with its prefix), or nil.
    public func parameterIndex(named name: String) -> Int? {
        let index = sqlite3_bind_parameter_index(handle, name)
        return index == 0 ? nil : Int(index)
    }

    /// Whether the statement leaves the database unchanged.
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// Binds `value` to parameter `index` (1-based).
    ///
    /// - Throws: `DatabaseError` when the index is out of range or SQLite refuses the value.
    public func bind(_ value: DatabaseValue, at index: Int) throws {
        let position = Int32(index)
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, position)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, position, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, position, real)
        case .text(let text):
            // By its length, not to a NUL: text may hold one.
            var text = text
            code = text.withUTF8 { bytes in
                sqlite3_bind_text(handle, position, UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self),
                                  Int32(bytes.count), csqlcipher_transient())
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(handle, position, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), csqlcipher_transient())
            }
        }
        try check(code)
    }

    /// Binds `count` bytes of UTF-8 text at `bytes` without a copy (`SQLITE_STATIC`): each
    /// copy is an allocation, and with SQLCipher's memory security on, every allocation is
    /// locked in memory (an mlock and an munlock). The bytes must stay as they are until the
    /// parameter is bound again or the statement is finalized.
    ///
    /// - Throws: `DatabaseError` when the index is out of range.
    public func bind(unretainedText bytes: UnsafeRawPointer, count: Int, at index: Int) throws {
        try check(sqlite3_bind_text(handle, Int32(index), bytes.assumingMemoryBound(to: CChar.self), Int32(count), nil))
    }

    /// Binds `bytes` as text exactly as they are (a NUL, or bytes that are not UTF-8, kept),
    /// copied by SQLite.
    ///
    /// - Throws: `DatabaseError` when the index is out of range or the text is too big.
    public func bind(textBytes bytes: [UInt8], at index: Int) throws {
        let code = bytes.withUnsafeBufferPointer { buffer in
            sqlite3_bind_text(handle, Int32(index), UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self),
                              Int32(buffer.count), csqlcipher_transient())
        }
        try check(code)
    }

    /// Binds key material as a blob straight from its secure buffer (for `ATTACH … KEY ?`);
    /// nil binds the empty key, which means no encryption.
    public func bind(key: KeyMaterial?, at index: Int) throws {
        guard let key else {
            try check(sqlite3_bind_text(handle, Int32(index), "", 0, csqlcipher_transient()))
            return
        }
        let code = key.codecBytes.withUnsafeBytes { bytes in
            sqlite3_bind_blob(handle, Int32(index), bytes.baseAddress, Int32(bytes.count), csqlcipher_transient())
        }
        try check(code)
    }

    /// Binds values to the parameters in order, from index 1.
    public func bind(_ values: [DatabaseValue]) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: offset + 1)
        }
    }

    /// Runs the statement one step: true when a row is ready, false when it is done.
    ///
    /// - Throws: `DatabaseError` when SQLite fails.
    @discardableResult
    public func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw DatabaseError(code: code, connection: connection.handle, sql: sql)
        }
    }

    /// The value of column `index` (0-based) of the current row, by its storage class.
    public func value(at index: Int) -> DatabaseValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }

    /// The storage class of column `index` of the current row, as `sqlite3_column_type` says.
    public func columnType(at index: Int) -> Int32 {
        sqlite3_column_type(handle, Int32(index))
    }

    /// Column `index` of the current row as an integer (SQLite's conversion).
    public func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    /// Column `index` of the current row as a double (SQLite's conversion).
    public func double(at index: Int) -> Double {
        sqlite3_column_double(handle, Int32(index))
    }

    /// The UTF-8 bytes of a text column of the current row, without copying them; the
    /// buffer is valid only inside `body` (until the next step).
    public func withText<T>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let column = Int32(index)
        let pointer = UnsafeRawPointer(sqlite3_column_text(handle, column))
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
    }

    /// The bytes of a blob column of the current row, without copying them; valid only
    /// inside `body`.
    public func withBlob<T>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let column = Int32(index)
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
    }

    /// The current row with its column names.
    public func currentRow() -> Row {
        Row(columns: columnNames, values: row())
    }

    /// All the values of the current row.
    public func row() -> [DatabaseValue] {
        (0..<columnCount).map(value(at:))
    }

    /// Steps through every row and returns them.
    public func allRows() throws -> [[DatabaseValue]] {
        var rows: [[DatabaseValue]] = []
        while try step() { rows.append(row()) }
        return rows
    }

    /// Resets the statement so it can run again; bindings stay.
    public func reset() {
        sqlite3_reset(handle)
    }

    /// Clears every binding to NULL.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    /// The `sqlite3_stmt`, for the C helpers that step it many times in one call, and the
    /// C row writers (`CRowFormat`).
    var rawHandle: OpaquePointer? { handle }

    /// The error of a step that returned `code`, for a caller that stepped it in C.
    func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(code: code, connection: connection.handle, sql: sql)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(code: code, connection: connection.handle, sql: sql)
        }
    }
}
