import CSQLCipher

/// Copies a database page by page from one keyed connection to another with the SQLite
/// backup API: each page is decrypted with the source's key and encrypted with the
/// destination's, and nothing is re-inserted, so indexes are not rebuilt and the header
/// (user_version, application_id, auto_vacuum) comes across as it is.
///
/// SQLCipher (4.3 and later) allows a backup between two encrypted databases only when both
/// have the same page size and the same reserved bytes per page (the IV and HMAC); other
/// changes of settings go through `sqlcipher_export()`.
/// See https://www.sqlite.org/backup.html and https://www.zetetic.net/sqlcipher/sqlcipher-api/
enum PageCopy {
    /// Pages copied per step; the token is checked between steps.
    static let pagesPerStep: Int32 = 1024

    /// Whether a page copy can write `destination` from a database with `source` settings.
    static func fits(source: CipherSettings, destination: CipherSettings) -> Bool {
        guard let sourcePageSize = source.pageSize, sourcePageSize == destination.pageSize else { return false }
        guard source.useHMAC != false, destination.useHMAC != false else { return false }
        return source.reservedBytes == destination.reservedBytes
            && (source.plaintextHeaderSize ?? 0) == 0 && (destination.plaintextHeaderSize ?? 0) == 0
    }

    /// Copies every page of `source`'s main database into `destination`'s, which must be
    /// keyed and empty, in steps, checking `token` between them.
    ///
    /// - Throws: `DatabaseError` from the backup, `CipherKitError.cancelled` when cancelled.
    static func run(from source: Connection, to destination: Connection, token: CancellationToken, path: String) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            throw DatabaseError(code: sqlite3_errcode(destination.handle), connection: destination.handle)
        }
        var code = SQLITE_OK
        repeat {
            if token.isCancelled {
                sqlite3_backup_finish(backup)
                throw CipherKitError.cancelled(path: path)
            }
            code = sqlite3_backup_step(backup, pagesPerStep)
        } while code == SQLITE_OK
        let finished = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE, finished == SQLITE_OK else {
            // The step's own code says why; finish repeats it on the destination.
            throw DatabaseError(code: code == SQLITE_DONE ? finished : code, connection: destination.handle)
        }
    }
}
