import CCipherProvider
import Foundation

/// What lies beside a database: its -wal, a hot journal, and leftovers of interrupted runs.
extension FileAuditor {
    static func lookBeside(_ path: String, descriptor: Int32, into audit: inout FileAudit) {
        audit.walFile = isRegularFile(path + "-wal")
        audit.hotJournal = hasHotJournal(path, descriptor: descriptor)
        audit.leftovers = TemporaryDatabase.leftovers(beside: path, includingMarks: true)
    }

    /// Whether the `-journal` beside the database is hot, as SQLite decides it: not empty, its
    /// header not zeroed, and no writer holding the RESERVED lock (a live transaction's
    /// journal is not hot). See https://www.sqlite.org/fileformat2.html#hot_journals
    static func hasHotJournal(_ path: String, descriptor: Int32) -> Bool {
        let journal = path + "-journal"
        guard isRegularFile(journal) else { return false }
        let handle = open(journal, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard handle >= 0 else { return false }
        defer { close(handle) }
        var first: UInt8 = 0
        guard read(handle, &first, 1) == 1, first != 0 else { return false }
        return cipherfile_reserved_lock_held(descriptor) == 0
    }

    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
