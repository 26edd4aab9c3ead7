import CSQLCipher

extension DatabaseError {
    /// The error as it may be shown for a statement whose text `sql` may hold key material
    /// (`SQLText.holdsKeyMaterial`): SQLite's generic message for the code (its own may quote
    /// the text, `near "…": syntax error`), and no SQL; any other statement's error as it is.
    func shown(for sql: String) -> DatabaseError {
        guard SQLText.holdsKeyMaterial(sql) else { return self }
        return DatabaseError(extendedCode: extendedResultCode, message: String(cString: sqlite3_errstr(extendedResultCode)), systemErrno: systemErrno)
    }
}
