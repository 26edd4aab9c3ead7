import FoundationEssentials
import Glibc

/// Writes at an offset that carry on after short transfers and interrupted calls, for the
/// page engine's threads (each works on its own range of one shared descriptor).
extension FileOperations {
    /// Writes all `count` bytes at `offset`; nil on success, else the failing call's errno.
    static func writeFully(_ descriptor: Int32, from buffer: UnsafeRawPointer, count: Int, at offset: off_t) -> Int32? {
        var done = 0
        while done < count {
            let written = pwrite(descriptor, buffer + done, count - done, offset + off_t(done))
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? errno : ENOSPC }
            done += written
        }
        return nil
    }
}
