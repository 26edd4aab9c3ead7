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
    /// or is not a journal. A journal is segments, each a header padded to the sector size and
    /// the number of records it names (each the page number, the page and a checksum); the
    /// next header starts at the sector boundary after them.
    /// See https://www.sqlite.org/fileformat2.html#rollbackjournal
    static func journalPageOne(beside path: String) -> [UInt8]? {
        let size = FileOperations.size(of: path + "-journal") ?? 0
        guard let journal = OpenFile(reading: path + "-journal"), let first = journalHeader(journal, at: 0, size: size) else { return nil }
        let (sectorSize, pageSize) = (first.sectorSize, first.pageSize)
        guard (512...65536).contains(pageSize), (32...65536).contains(sectorSize) else { return nil }
        var header: (records: Int, sectorSize: Int, pageSize: Int)? = first
        var segment = 0
        while let current = header {
            var offset = segment + sectorSize
            for _ in 0..<current.records {
                guard let pgno = journal.read(at: offset, count: 4), pgno.count == 4 else { return nil }
                if pgno.elementsEqual([0, 0, 0, 1]) {
                    let page = journal.read(at: offset + 4, count: pageSize)
                    return page?.count == pageSize ? page : nil
                }
                offset += 4 + pageSize + 4
            }
            segment = (offset + sectorSize - 1) / sectorSize * sectorSize
            header = journalHeader(journal, at: segment, size: size)
        }
        return nil
    }

    /// The journal header at `offset` of a journal of `size` bytes: its record count (all the
    /// records to the end for SQLite's 0xffffffff), sector size and page size; nil without its magic.
    private static func journalHeader(_ journal: OpenFile, at offset: Int, size: Int) -> (records: Int, sectorSize: Int, pageSize: Int)? {
        guard let header = journal.read(at: offset, count: 28), header.count == 28,
              header[0..<8].elementsEqual([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]) else { return nil }
        func number(_ at: Int) -> Int { header[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let records = number(8), sectorSize = number(20), pageSize = number(24)
        guard pageSize > 0 else { return nil }
        let all = max(0, (size - offset - sectorSize) / (pageSize + 8))
        return (records == 0xFFFF_FFFF ? all : min(records, all), sectorSize, pageSize)
    }
}

