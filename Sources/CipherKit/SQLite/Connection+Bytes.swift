import CSQLCipher

extension Connection {
    /// Runs SQL text given as bytes, ignoring any rows. The bytes reach SQLite as they are:
    /// a string literal that is not valid UTF-8 (TEXT SQLite stored as it was given) keeps
    /// its bytes, which a Swift `String` would replace with U+FFFD.
    public func execute(bytes sql: [UInt8]) throws {
        let code = (sql + [0]).withUnsafeBufferPointer { buffer in
            sqlite3_exec(handle, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self), nil, nil, nil)
        }
        guard code == SQLITE_OK else { throw DatabaseError(code: code, connection: handle, sql: String(decoding: sql, as: UTF8.self)) }
    }
}
