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

    /// Page 1 as the rollback journal beside `path` keeps it from before the transaction it
    /// holds (its first record of page 1), as stored; nil when the journal has no such record
    /// or is not a journal. The header is padded to its sector size; each record is the page
    /// number, the page and a checksum.
    /// See https://www.sqlite.org/fileformat2.html#rollbackjournal
    static func journalPageOne(beside path: String) -> [UInt8]? {
        guard let journal = OpenFile(reading: path + "-journal"), let header = journal.read(at: 0, count: 28), header.count == 28,
              header[0..<8].elementsEqual([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]) else { return nil }
        func number(_ at: Int) -> Int { header[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let sectorSize = number(20), pageSize = number(24)
        guard (512...65536).contains(pageSize), (32...65536).contains(sectorSize) else { return nil }
        var offset = sectorSize
        while let pgno = journal.read(at: offset, count: 4), pgno.count == 4 {
            if pgno.elementsEqual([0, 0, 0, 1]) {
                let page = journal.read(at: offset + 4, count: pageSize)
                return page?.count == pageSize ? page : nil
            }
            offset += 4 + pageSize + 4
        }
        return nil
    }
}

