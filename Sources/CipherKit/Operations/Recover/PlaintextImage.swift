import CCipherProvider
import Foundation

/// The source database decrypted into a file in memory only (`cipherfile_memory_file`), page
/// by page with the page codec: a page that fails its HMAC is written as zeros and counted
/// lost, so SQLite's recovery reads everything else. A lost first page is replaced by an
/// empty one with a SQLite header, so that the rows of the other pages are still found.
struct PlaintextImage {
    /// The memory file's descriptor; closed by `close()`.
    let descriptor: Int32
    let pages: Int
    let lostPages: [Int]

    /// - Throws: `CipherKitError.fileAccess` when the source cannot be read or memory is short.
    static func make(from path: String, codec: PageCodec) throws -> PlaintextImage {
        let descriptor = cipherfile_memory_file("cipherctl-recover")
        guard descriptor >= 0 else { throw CipherKitError.fileAccess(path: path, reason: "no memory file: " + String(cString: strerror(errno))) }
        do {
            let (pages, lost) = try decrypt(path, codec: codec, into: descriptor)
            if lost.contains(1) { try writeEmptyFirstPage(codec: codec, pages: pages, into: descriptor) }
            return PlaintextImage(descriptor: descriptor, pages: pages, lostPages: lost)
        } catch {
            Foundation.close(descriptor)
            throw error
        }
    }

    func close() {
        Foundation.close(descriptor)
    }

    private static func decrypt(_ path: String, codec: PageCodec, into descriptor: Int32) throws -> (Int, [Int]) {
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
        defer { Foundation.close(source) }
        let size = codec.pageSize, chunk = max(1, (1 << 20) / size)
        var input = [UInt8](repeating: 0, count: chunk * size), output = input
        var first = 1, lost: [Int] = []
        while true {
            let read = input.withUnsafeMutableBytes { pread(source, $0.baseAddress, $0.count, off_t((first - 1) * size)) }
            guard read >= 0 else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
            let count = read / size
            if count == 0 { return (first - 1, lost) }
            let bad = try input.withUnsafeBytes { from in
                try output.withUnsafeMutableBytes { to in
                    try codec.decryptPages(UnsafeRawBufferPointer(rebasing: from[0..<count * size]), first: first, count: count,
                                           into: UnsafeMutableRawBufferPointer(rebasing: to[0..<count * size]))
                }
            }
            for pgno in bad { output.replaceSubrange((pgno - first) * size..<(pgno - first + 1) * size, with: repeatElement(0, count: size)) }
            lost += bad
            let written = output.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, count * size, off_t((first - 1) * size)) }
            guard written == count * size else { throw CipherKitError.fileAccess(path: path, reason: "the memory file took too little: " + String(cString: strerror(errno))) }
            first += count
        }
    }

    /// A first page that SQLite reads as an empty database of this page size and reserve:
    /// its recovery then puts every row it finds into `lost_and_found`.
    /// See https://www.sqlite.org/fileformat2.html#the_database_header
    private static func writeEmptyFirstPage(codec: PageCodec, pages: Int, into descriptor: Int32) throws {
        var page = [UInt8](repeating: 0, count: codec.pageSize)
        page.replaceSubrange(0..<16, with: DatabaseFile.sqliteMagic)
        // 65536 is written as 1: two bytes cannot hold it.
        let size = codec.pageSize == 65536 ? 1 : codec.pageSize
        page[16] = UInt8((size >> 8) & 0xFF)
        page[17] = UInt8(size & 0xFF)
        page[18] = 1
        page[19] = 1
        page[20] = UInt8(codec.reserve)
        page[21] = 64
        page[22] = 32
        page[23] = 32
        withUnsafeBytes(of: UInt32(pages).bigEndian) { page.replaceSubrange(28..<32, with: $0) }
        page[47] = 4 // schema format
        page[59] = 1 // UTF-8
        page[100] = 0x0D // an empty leaf table b-tree page: sqlite_schema with no rows
        withUnsafeBytes(of: UInt16(codec.pageSize - codec.reserve).bigEndian) { page.replaceSubrange(105..<107, with: $0) }
        let written = page.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == page.count else { throw CipherKitError.fileAccess(path: "memory file", reason: String(cString: strerror(errno))) }
    }
}
