import CSQLCipher
import CSnapshotVFS

/// A database's raw pages as its last committed state holds them, for a caller that reads
/// pages itself (`recover`): a connection through `SnapshotVFS` that never reads a page, so
/// it needs no key, with a hot journal's pages served in place of the file's, under a
/// reader's lock so that no writer changes either while they are read. Creates no file.
final class SnapshotReader {
    private let connection: Connection
    private let lock: ReaderLock
    /// The main file's pages, through the VFS (`PageSource(access:)` reads the WAL itself).
    let access: DatabaseFileAccess
    /// Whether a hot journal lies beside the file: its pages are read in place of the file's.
    let readsPastHotJournal: Bool

    /// - Throws: `CipherKitError.fileAccess` or `busy` (the lock), `CipherKitError.database`
    ///   when the file cannot be opened or its hot journal read.
    init(path: String, waitingMilliseconds: Int) throws {
        lock = try ReaderLock(path: path, waitingMilliseconds: waitingMilliseconds)
        connection = try CipherKitError.translating(path: path) {
            try Connection(path: SQLiteURI.untouched(path, .lockedSnapshot), mode: .readOnly, uriFilenames: true, vfs: SnapshotVFS.name)
        }
        var hot: Int32 = 0
        let code = sqlite3_file_control(connection.handle, "main", SNAPSHOTVFS_FCNTL_READ_JOURNAL, &hot)
        guard code == SQLITE_OK, let access = DatabaseFileAccess(connection) else {
            throw CipherKitError.database(path: path, error: DatabaseError(code: code == SQLITE_OK ? SQLITE_CANTOPEN : code, connection: nil))
        }
        self.access = access
        readsPastHotJournal = hot != 0
    }

    deinit {
        try? connection.close()
    }
}
