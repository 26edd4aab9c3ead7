import FoundationEssentials
import Glibc

/// What a rollback journal's bytes say.
extension FileOperations {
    /// Whether the `-journal` beside the database at `path` holds a transaction to play back,
    /// as far as its bytes say: a regular file, not empty, its header not zeroed. (SQLite
    /// also asks that no writer hold the RESERVED lock: `ReaderLock.hasHotJournal`.)
    /// See https://www.sqlite.org/fileformat2.html#hot_journals
    static func journalHoldsTransaction(beside path: String) -> Bool {
        let journal = path + "-journal"
        var status = stat()
        guard lstat(journal, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        let handle = open(journal, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC)
        guard handle >= 0 else { return false }
        defer { close(handle) }
        var first: UInt8 = 0
        return read(handle, &first, 1) == 1 && first != 0
    }
}
