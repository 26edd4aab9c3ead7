import CCipherProvider
import FoundationEssentials
import Glibc

/// A reader's SHARED lock on a database file, taken as SQLite's readers take it but on a
/// descriptor of its own as an open-file-description lock (`cipherfile_shared_lock`): closing
/// any other descriptor of the file does not drop it. It keeps writers from changing the file
/// while a connection that takes no locks of its own (`immutable=1`) reads it. Released when
/// this is freed. The file is opened without blocking, so a FIFO never stalls it.
final class ReaderLock {
    private let descriptor: Int32

    /// Opens `path` and takes the lock, trying again for up to `waitingMilliseconds` while a
    /// writer holds the file.
    ///
    /// - Throws: `CipherKitError.fileAccess` when the file cannot be opened, `busy` when a
    ///   writer holds it past the wait.
    init(path: String, waitingMilliseconds: Int) throws {
        descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
        let deadline = Date().addingTimeInterval(Double(max(0, waitingMilliseconds)) / 1000)
        // A file this process holds already (diff of a file with itself) skips the PENDING byte.
        let gated: Int32 = HeldReaderLocks.shared.holds(descriptor) ? 0 : 1
        // -1: a file system without locks; the read goes on, as it would for SQLite's own.
        while cipherfile_shared_lock(descriptor, gated) == 1 {
            guard Date() < deadline else {
                close(descriptor)
                throw CipherKitError.busy(path: path)
            }
            usleep(10_000)
        }
        HeldReaderLocks.shared.enter(descriptor)
    }

    deinit {
        HeldReaderLocks.shared.leave(descriptor)
        close(descriptor)
    }

    /// Whether the `-journal` beside the database at `path` (this lock's file) is hot, as
    /// SQLite decides it: not empty, its header not zeroed, and no writer holding the
    /// RESERVED lock (a live transaction's journal is not hot).
    /// See https://www.sqlite.org/fileformat2.html#hot_journals
    func hasHotJournal(beside path: String) -> Bool {
        // SQLite looks beside the file a symbolic link names, not beside the link.
        FileOperations.journalHoldsTransaction(beside: FileOperations.withoutSymbolicLinks(path)) && cipherfile_reserved_lock_held(descriptor) == 0
    }
}
