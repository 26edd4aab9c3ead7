import FoundationEssentials
import Glibc

/// SQLite's EXCLUSIVE lock on a database, taken the way its unix VFS takes it.
extension FileOperations {
    /// Runs `body` while this process holds a write lock on the file's PENDING, RESERVED and
    /// SHARED bytes; false, with `body` not run, when another process holds any of them.
    ///
    /// Every connection to a WAL database holds a read lock on the SHARED bytes while it is
    /// open, and an opener takes one before it maps the -shm: under this lock no other process
    /// uses the -shm or can start to, which is when SQLite itself deletes one on a last close.
    /// This process must hold no connection to the file, as closing the descriptor here drops
    /// every lock the process holds on it.
    /// See https://www.sqlite.org/lockingv3.html and https://www.sqlite.org/walformat.html#the_wal_index_file_format
    @discardableResult
    static func whileNoOtherProcessHolds(_ path: String, _ body: () -> Void) -> Bool {
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var lock = writeLock(start: 0x4000_0000, length: 2 + 510)
        guard fcntl(descriptor, F_SETLK, &lock) == 0 else { return false }
        body()
        lock.l_type = Int16(F_UNLCK)
        _ = fcntl(descriptor, F_SETLK, &lock)
        return true
    }
}
