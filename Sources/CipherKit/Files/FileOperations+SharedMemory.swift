import FoundationEssentials
import Glibc

/// Whether a -shm beside a database is a live connection's or left by ended ones.
extension FileOperations {
    /// Whether some process has the -shm beside `path` open as SQLite's wal-index: it holds
    /// a lock on the -shm's DMS byte (128) while it does. When nobody does, the next
    /// connection takes that byte alone and truncates the -shm, and recovers the -wal as if
    /// no -shm were there. A -shm this process cannot open counts as live; no -shm does not.
    /// (Only a lock of another process shows; call this before opening the database.)
    /// See SQLite's os_unix.c, unixLockSharedMemory.
    static func sharedMemoryIsLive(beside path: String) -> Bool {
        let shm = path + "-shm"
        guard exists(shm) else { return false }
        let handle = open(shm, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard handle >= 0 else { return true }
        defer { close(handle) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        return fcntl(handle, F_GETLK, &lock) != 0 || lock.l_type != Int16(F_UNLCK)
    }
}
