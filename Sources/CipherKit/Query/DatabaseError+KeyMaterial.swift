import CSQLCipher

extension DatabaseError {
    /// The error as it may be shown for a statement whose text `sql` may hold key material
    /// (`SQLText.holdsKeyMaterial`): SQLite's generic message for the code (its own may quote
    /// the text, `near "…": syntax error`), and no SQL; any other statement's error as it is.
    func shown(for sql: String) -> DatabaseError {
        SQLText.holdsKeyMaterial(sql) ? generic : self
    }

    /// The error with SQLite's generic message for its code, which quotes no SQL.
    var generic: DatabaseError {
        DatabaseError(extendedCode: extendedResultCode, message: String(cString: sqlite3_errstr(extendedResultCode)), systemErrno: systemErrno)
    }
}
