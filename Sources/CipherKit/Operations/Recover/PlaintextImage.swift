import CCipherProvider
import FoundationEssentials
import Glibc

/// The source database decrypted into a file in memory only (`cipherfile_memory_file`), page
/// by page with the page codec, each page from the last committed WAL frame that holds it,
/// else from the main file (`PageSource`): a page that fails its HMAC, or that the file
/// should hold but does not (a truncated file), is written as zeros and counted lost, so
/// SQLite's recovery reads everything else. A lost first page is replaced by an empty one
/// with a SQLite header, so that the rows of the other pages are still found.
struct PlaintextImage {
    /// The memory file's descriptor; closed by `close()`.
    let descriptor: Int32
    let pageSize: Int
    /// The pages the database has: its header's count when valid, else the pages present.
    private(set) var pages: Int
    private(set) var lostPages: Set<Int>
    /// The WAL frame that fails its salts or checksum although a commit follows it: SQLite drops it
    /// and every commit after it, and so does the image.
    private(set) var droppedWALFrame: Int?
    /// Whether `pages` is the header's count (else the pages present, a lower bound when page 1 is lost).
    private(set) var countedByHeader = false

    /// - Throws: `CipherKitError.fileAccess` when the source cannot be read or memory is short.
    static func make(from source: PageSource, codec: PageCodec) throws -> PlaintextImage {
        let descriptor = cipherfile_memory_file("cipherctl-recover")
        guard descriptor >= 0 else { throw CipherKitError.fileAccess(path: source.path, reason: "no memory file: " + String(cString: strerror(errno))) }
        var image = PlaintextImage(descriptor: descriptor, pageSize: codec.pageSize, pages: 0, lostPages: [])
        do {
            try image.decrypt(source, codec: codec)
            return image
        } catch {
            image.close()
            throw error
        }
    }

    func close() {
        Glibc.close(descriptor)
    }

    /// Page `pgno`'s plaintext; nil when it is lost or past the end.
    func page(_ pgno: Int) -> [UInt8]? {
        guard pgno >= 1, pgno <= pages, !lostPages.contains(pgno) else { return nil }
        return try? read(pgno)
    }

    /// Whether page 1's header names WAL as the journal mode (its read and write versions 2),
    /// before `sealFirstPage` sets them back.
    var namesWAL: Bool {
        page(1).map(Self.namesWAL) ?? false
    }

    private static func namesWAL(_ first: [UInt8]) -> Bool {
        first[18] == 2 || first[19] == 2
    }

    /// Counts the pages from the end up to `count` as lost (missing from a truncated file),
    /// for when only the b-trees' references say how long the file was.
    mutating func extend(to count: Int) throws {
        guard count > pages else { return }
        lostPages.formUnion(pages + 1...count)
        pages = count
        guard ftruncate(descriptor, off_t(count * pageSize)) == 0 else { throw memoryFailure() }
    }

    /// Makes page 1 one that SQLite's recovery reads from memory: the empty one a lost page 1
    /// is replaced by, or the page with its journal mode set back from WAL to rollback (a
    /// file in memory has no WAL, and SQLite refuses to read a WAL database without one).
    /// See https://www.sqlite.org/fileformat2.html#the_database_header
    func sealFirstPage(reserve: Int) throws {
        guard pages > 0 else { return }
        var page = lostPages.contains(1) ? Self.emptyFirstPage(pageSize: pageSize, reserve: reserve, pages: pages) : try read(1)
        if Self.namesWAL(page) { (page[18], page[19]) = (1, 1) }
        try write(page, at: 1)
    }

    private mutating func decrypt(_ source: PageSource, codec: PageCodec) throws {
        let filePages = source.fileSize / pageSize
        droppedWALFrame = source.damagedWALFrame?.frame
        var bad = try decryptFilePages(source, codec: codec, count: filePages)
        for pgno in source.walPageNumbers.sorted() {
            // The WAL's version replaces the file's, damaged or not.
            bad.remove(pgno)
            if try !decryptWALPage(source, pgno: pgno, codec: codec) { bad.insert(pgno) }
        }
        let present = max(filePages, source.walPageNumbers.max() ?? 0)
        let header = present >= 1 && !bad.contains(1) ? try read(1) : nil
        let counted = header.flatMap(Self.headerPageCount)
        (pages, countedByHeader) = (counted ?? source.pageCount, counted != nil)
        // Pages the file should hold past its end, and not in the WAL, are missing (a truncated file).
        lostPages = bad.filter { $0 <= pages }.union(pages > filePages ? Set((filePages + 1...pages).filter { !source.isInWAL($0) }) : [])
        guard ftruncate(descriptor, off_t(pages * pageSize)) == 0 else { throw memoryFailure() }
    }

    /// Decrypts the WAL's version of page `pgno` into place; false, with zeros written, when it fails its HMAC.
    private func decryptWALPage(_ source: PageSource, pgno: Int, codec: PageCodec) throws -> Bool {
        var plain = [UInt8](repeating: 0, count: pageSize)
        guard let raw = source.page(pgno), raw.count == pageSize else {
            try write(plain, at: pgno)
            return false
        }
        let failed = Self.isAllZero(raw[...]) ? [pgno] : try raw.withUnsafeBytes { from in
            try plain.withUnsafeMutableBytes { to in try codec.decryptPages(from, first: pgno, count: 1, into: to) }
        }
        try write(failed.isEmpty ? plain : [UInt8](repeating: 0, count: pageSize), at: pgno)
        return failed.isEmpty
    }

    /// Decrypts the main file's `count` whole pages a chunk at a time; returns those that fail their HMAC, written as zeros.
    private func decryptFilePages(_ source: PageSource, codec: PageCodec, count: Int) throws -> Set<Int> {
        let chunk = max(1, (1 << 20) / pageSize)
        var output = [UInt8](repeating: 0, count: chunk * pageSize), bad: Set<Int> = [], first = 1
        while first <= count {
            let take = min(chunk, count - first + 1)
            let input = source.filePages(from: first, count: take)
            guard input.count == take * pageSize else { throw CipherKitError.fileAccess(path: source.path, reason: "the file changed while it was read") }
            let failed = try input.withUnsafeBytes { from in
                try output.withUnsafeMutableBytes { to in
                    try codec.decryptPages(from, first: first, count: take, into: UnsafeMutableRawBufferPointer(rebasing: to[0..<take * pageSize]))
                }
            }
            // SQLCipher passes a page of zeros unchecked, but no page it writes is all zeros: its content is gone.
            let zeroed = (first..<first + take).filter { Self.isAllZero(input[($0 - first) * pageSize..<($0 - first + 1) * pageSize]) }
            for pgno in failed + zeroed { output.replaceSubrange((pgno - first) * pageSize..<(pgno - first + 1) * pageSize, with: repeatElement(0, count: pageSize)) }
            bad.formUnion(failed + zeroed)
            try output.withUnsafeBytes { try write(Array($0[0..<take * pageSize]), at: first) }
            first += take
        }
        return bad
    }

    /// Stops at the first nonzero byte: ciphertext has one almost at once.
    private static func isAllZero(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.contains { $0 != 0 }
    }

    /// The page count the header records, when valid: SQLite trusts it only when the
    /// version-valid-for number matches the change counter.
    private static func headerPageCount(_ page: [UInt8]) -> Int? {
        let counted = PageOwners.u32(page, 28)
        return counted > 0 && PageOwners.u32(page, 24) == PageOwners.u32(page, 92) ? counted : nil
    }

    /// A first page that SQLite reads as an empty database of this page size and reserve:
    /// its recovery then puts every row it finds into `lost_and_found`.
    private static func emptyFirstPage(pageSize: Int, reserve: Int, pages: Int) -> [UInt8] {
        var page = [UInt8](repeating: 0, count: pageSize)
        page.replaceSubrange(0..<16, with: DatabaseFile.sqliteMagic)
        // 65536 is written as 1: two bytes cannot hold it.
        let size = pageSize == 65536 ? 1 : pageSize
        page[16] = UInt8((size >> 8) & 0xFF)
        page[17] = UInt8(size & 0xFF)
        page[18] = 1
        page[19] = 1
        page[20] = UInt8(reserve)
        page[21] = 64
        page[22] = 32
        page[23] = 32
        withUnsafeBytes(of: UInt32(pages).bigEndian) { page.replaceSubrange(28..<32, with: $0) }
        page[47] = 4 // schema format
        page[59] = 1 // UTF-8
        page[100] = 0x0D // an empty leaf table b-tree page: sqlite_schema with no rows
        withUnsafeBytes(of: UInt16(pageSize - reserve).bigEndian) { page.replaceSubrange(105..<107, with: $0) }
        return page
    }

    private func read(_ pgno: Int) throws -> [UInt8] {
        var page = [UInt8](repeating: 0, count: pageSize)
        let got = page.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, pageSize, off_t((pgno - 1) * pageSize)) }
        guard got == pageSize else { throw memoryFailure() }
        return page
    }

    /// Writes `bytes` (whole pages) from page `pgno` on.
    private func write(_ bytes: [UInt8], at pgno: Int) throws {
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t((pgno - 1) * pageSize)) }
        // A short write is the limit reached (`ulimit -f` and the memory file's tmpfs count).
        guard written == bytes.count else { throw written >= 0 ? CipherKitError.outOfSpace(path: "the memory file") : memoryFailure() }
    }

    private func memoryFailure() -> CipherKitError {
        [EFBIG, ENOSPC].contains(errno)
            ? CipherKitError.outOfSpace(path: "the memory file")
            : CipherKitError.fileAccess(path: "the memory file", reason: String(cString: strerror(errno)))
    }
}
