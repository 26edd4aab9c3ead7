extension DatabaseOpener {
    /// Proves a key for settings without page HMACs on a connection that cannot create files.
    ///
    /// Without an HMAC a wrong key is not rejected: page 1 decrypts to noise, and when the
    /// noise says "WAL" (one time in 256) an ordinary open, even a read-only one, creates
    /// -wal and -shm files beside the database. An `immutable=1` connection creates nothing.
    /// See https://www.sqlite.org/uri.html#uriimmutable
    static func proveWithoutHMAC(_ request: OpenRequest, file: DatabaseFile) throws {
        let connection = try CipherKitError.translating(path: request.path, file: file) {
            try Connection(path: SQLiteURI.untouched(request.path, .fileAlone), mode: .readOnly, logLevel: request.logLevel, uriFilenames: true)
        }
        defer { try? connection.close() }
        try CipherKitError.translating(path: request.path, file: file) {
            if let key = request.key { try connection.key(key) }
            try connection.apply(request.settings)
        }
        try verify(connection, request: request, file: file)
    }
}
