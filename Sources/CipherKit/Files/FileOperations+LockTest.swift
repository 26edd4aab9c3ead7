import FoundationEssentials
import Glibc

/// Tests for a lock another process holds on a file, without taking one.
extension FileOperations {
    /// Whether another process holds a lock on any of the `length` bytes from `start` of the
    /// file at `path` (a test with `F_GETLK`, which takes no lock and never sees this
    /// process's own locks); nil when the file cannot be opened or the test fails.
    static func isLockedByAnotherProcess(_ path: String, start: Int, length: Int) -> Bool? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var lock = writeLock(start: start, length: length)
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else { return nil }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// A POSIX write lock on the `length` bytes from `start`, for `F_GETLK` or `F_SETLK`.
    static func writeLock(start: Int, length: Int) -> flock {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = off_t(length)
        return lock
    }
}
