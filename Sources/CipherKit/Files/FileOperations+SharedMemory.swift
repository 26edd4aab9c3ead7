import FoundationEssentials

/// Whether a -shm beside a database is a live connection's or left by ended ones.
extension FileOperations {
    /// Whether some process has the -shm beside `path` open as SQLite's wal-index: it holds
    /// a lock on the -shm's DMS byte (128) while it does. When nobody does, the next
    /// connection takes that byte alone and truncates the -shm, and recovers the -wal as if
    /// no -shm were there. A -shm this process cannot open counts as live; no -shm does not.
    /// (Only a lock of another process shows; call this before opening the database.)
    /// See SQLite's os_unix.c, unixLockSharedMemory.
    static func sharedMemoryIsLive(beside path: String) -> Bool {
        exists(path + "-shm") && isLockedByAnotherProcess(path + "-shm", start: 128, length: 1) ?? true
    }
}
