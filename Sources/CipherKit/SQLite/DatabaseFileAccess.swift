import CSQLCipher

/// Reads and writes a connection's main database file through the file SQLite itself opened
/// (`SQLITE_FCNTL_FILE_POINTER`), never through a descriptor of its own.
///
/// SQLite's locks are POSIX advisory locks, which belong to the process: closing any other
/// descriptor of the same file drops every one of them, the locks SQLite's connections hold
/// included, and another process could then write the file while this one still relies on
/// them. Reading through SQLite's own open file opens and closes nothing. The unix VFS reads
/// with `pread`, so several threads may read at once. Valid while the connection is open; a
/// write goes behind SQLite's back, so only to a file SQLite will not read again.
/// See https://www.sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_
final class DatabaseFileAccess: @unchecked Sendable {
    private let file: UnsafeMutablePointer<sqlite3_file>

    /// The reader of `connection`'s main database; nil when SQLite gives no file.
    init?(_ connection: Connection) {
        var pointer: UnsafeMutablePointer<sqlite3_file>?
        guard let handle = connection.handle, sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
              let pointer, pointer.pointee.pMethods != nil else { return nil }
        file = pointer
    }

    /// Reads exactly `count` bytes at `offset`; false when the file ends first or the read fails.
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Bool {
        guard let read = file.pointee.pMethods.pointee.xRead else { return false }
        return read(file, buffer, Int32(count), sqlite3_int64(offset)) == SQLITE_OK
    }

    /// The file's size as SQLite sees it (a hot journal's rollback, in `SnapshotVFS`, gives
    /// the size before the interrupted transaction); nil when it cannot be read.
    var size: Int? {
        var size: sqlite3_int64 = 0
        guard let fileSize = file.pointee.pMethods.pointee.xFileSize, fileSize(file, &size) == SQLITE_OK else { return nil }
        return Int(size)
    }

    /// Writes `bytes` at `offset`; false when the write fails.
    func write(_ bytes: [UInt8], at offset: Int) -> Bool {
        guard let write = file.pointee.pMethods.pointee.xWrite else { return false }
        return bytes.withUnsafeBytes { write(file, $0.baseAddress, Int32($0.count), sqlite3_int64(offset)) } == SQLITE_OK
    }
}
