import CSQLCipher

/// How a connection opens its file.
public enum OpenMode: Sendable {
    /// Read only: nothing can be written, not even a journal.
    case readOnly
    /// Read and write an existing file; a missing file is an error.
    case readWrite
    /// Read and write, creating the file when it is missing.
    case create

    var flags: Int32 {
        // NOMUTEX: a connection is only ever used by one thread at a time (a batch opens one
        // per job; sqlite3_interrupt may still come from another thread), so SQLite need not
        // lock a mutex on every call, which costs a measurable share of streaming a result.
        let common = SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOMUTEX
        switch self {
        case .readOnly: return SQLITE_OPEN_READONLY | common
        case .readWrite: return SQLITE_OPEN_READWRITE | common
        case .create: return SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW | common
        }
    }
}
