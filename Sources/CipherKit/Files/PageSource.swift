import CCipherProvider
import FoundationEssentials
import Glibc

/// Reads a database's pages as SQLite would see them: each page from the last committed
/// frame of the WAL that holds it, else from the main file. Only reads; never takes a lock,
/// never creates a file.
///
/// The WAL is walked as SQLite recovers it: its header's checksum, then each frame whose
/// salts match the header and whose cumulative checksum holds, up to the last commit frame.
/// A frame that fails either test is where SQLite's recovery stops. When a commit frame with
/// the header's salts follows it, that is damage: SQLite would silently drop it and every
/// transaction after it. Otherwise it is a killed writer's torn last frame, or left over from
/// before the WAL was last restarted (frames with older salts), which is normal: a restart
/// writes its frames from the first, so none with the new salts can follow an older one.
/// See https://www.sqlite.org/fileformat2.html#the_write_ahead_log
struct PageSource {
    let path: String
    let pageSize: Int
    /// The main file's size in bytes.
    let fileSize: Int
    /// Page number to the offset of its page image in the WAL, for committed frames.
    private var walPages: [Int: Int] = [:]
    /// The database size in pages that the last commit frame records, if any.
    private(set) var walDatabasePages: Int?
    /// The WAL frame (1-based) where SQLite's recovery stops although a later commit
    /// follows it, and why it stops there.
    private(set) var damagedWALFrame: (frame: Int, pgno: Int, cause: String)?
    private let file: OpenFile?
    /// SQLite's own open file, read instead of `file` when given.
    private let access: DatabaseFileAccess?
    private let wal: OpenFile?

    /// `access` reads the main file through a connection's own open file, for a caller that
    /// holds a lock on it: a descriptor of this process opened and closed on it would drop
    /// every lock the process holds there (see `DatabaseFileAccess`).
    ///
    /// - Throws: `CipherKitError.fileAccess` when the file cannot be read.
    init(path: String, pageSize: Int, access: DatabaseFileAccess? = nil) throws {
        self.path = path
        self.pageSize = pageSize
        self.access = access
        if access == nil {
            guard let file = OpenFile(reading: path) else {
                throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno)))
            }
            self.file = file
        } else {
            file = nil
        }
        fileSize = access?.size ?? FileOperations.size(of: path) ?? 0
        wal = (FileOperations.size(of: path + "-wal") ?? 0) > 32 ? OpenFile(reading: path + "-wal") : nil
        if let wal { readWAL(wal) }
    }

    /// The page size the header of the -wal beside `path` names, when it is a WAL's header
    /// (its magic) and the size is one SQLite writes; nil otherwise.
    static func walPageSize(beside path: String) -> Int? {
        guard let header = FileOperations.leadingBytes(of: path + "-wal", count: 12), header.count == 12,
              bigEndian(header, 0) & 0xFFFF_FFFE == 0x377F_0682 else { return nil }
        let size = Int(bigEndian(header, 8))
        return (512...65536).contains(size) ? size : nil
    }

    /// What `damagedWALFrame` costs, as a damaged page's reason.
    var droppedCommitsReason: String? {
        damagedWALFrame.map { "WAL frame \($0.frame) \($0.cause): SQLite would drop it and every commit after it" }
    }

    /// Reads the main file alone from now on: the -wal beside it is another database's.
    mutating func setWALAside() {
        walPages = [:]
        walDatabasePages = nil
        damagedWALFrame = nil
    }

    /// The number of pages SQLite sees: the last commit's size, else the whole pages of the file.
    var pageCount: Int { walDatabasePages ?? fileSize / pageSize }

    /// Page `pgno`'s bytes as stored (encrypted), or nil when the file ends before it.
    func page(_ pgno: Int) -> [UInt8]? {
        if let offset = walPages[pgno] { return read(wal, at: offset, count: pageSize) }
        return readFile(at: (pgno - 1) * pageSize, count: pageSize)
    }

    /// The pages whose current version is a WAL frame.
    var walPageNumbers: Dictionary<Int, Int>.Keys { walPages.keys }

    /// Whether page `pgno`'s current version is a WAL frame.
    func isInWAL(_ pgno: Int) -> Bool { walPages[pgno] != nil }

    /// `count` consecutive pages of the main file from `first`, as one buffer (shorter at the end).
    func filePages(from first: Int, count: Int) -> [UInt8] {
        readFile(at: (first - 1) * pageSize, count: count * pageSize) ?? []
    }

    /// Up to `count` bytes of the main file at `offset` (fewer at its end); nil past it.
    private func readFile(at offset: Int, count: Int) -> [UInt8]? {
        guard let access else { return read(file, at: offset, count: count) }
        let available = min(count, fileSize - offset)
        guard available > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: available)
        return buffer.withUnsafeMutableBytes { access.read(into: $0.baseAddress!, count: available, at: offset) } ? buffer : nil
    }

    private func read(_ handle: OpenFile?, at offset: Int, count: Int) -> [UInt8]? {
        handle?.read(at: offset, count: count)
    }

    private mutating func readWAL(_ wal: OpenFile) {
        guard let header = read(wal, at: 0, count: 32), header.count == 32 else { return }
        let magic = Self.bigEndian(header, 0)
        guard magic & 0xFFFF_FFFE == 0x377F_0682, Int(Self.bigEndian(header, 8)) == pageSize else { return }
        let bigEndianSums = magic & 1 == 1
        var sums: [UInt32] = [0, 0]
        cipherpage_wal_checksum(header, 24, bigEndianSums ? 1 : 0, &sums)
        guard sums[0] == Self.bigEndian(header, 24), sums[1] == Self.bigEndian(header, 28) else { return }
        let salts = Array(header[16..<24])
        let frameSize = 24 + pageSize
        var pending: [Int: Int] = [:]
        var offset = 32, frame = 0
        while let bytes = read(wal, at: offset, count: frameSize), bytes.count == frameSize {
            frame += 1
            var next = sums
            let pgno = Int(Self.bigEndian(bytes, 0))
            if let cause = failure(of: bytes, salts: salts, sums: &next, bigEndianSums: bigEndianSums) {
                if hasCommit(in: wal, after: offset + frameSize, salts: salts) { damagedWALFrame = (frame, pgno, cause) }
                break
            }
            sums = next
            pending[pgno] = offset + 24
            let commitSize = Int(Self.bigEndian(bytes, 4))
            if commitSize > 0 {
                walPages.merge(pending) { $1 }
                pending = [:]
                walDatabasePages = commitSize
            }
            offset += frameSize
        }
    }

    /// Why SQLite's recovery stops at the frame `bytes`, or nil when it reads it: its salts
    /// are not the header's, or the checksum carried on from the frames before (`sums`,
    /// which this carries on over it) does not match its own.
    private func failure(of bytes: [UInt8], salts: [UInt8], sums: inout [UInt32], bigEndianSums: Bool) -> String? {
        guard Array(bytes[8..<16]) == salts else { return "does not carry the WAL's salts" }
        cipherpage_wal_checksum(bytes, 8, bigEndianSums ? 1 : 0, &sums)
        bytes.withUnsafeBufferPointer { cipherpage_wal_checksum($0.baseAddress! + 24, Int32(pageSize), bigEndianSums ? 1 : 0, &sums) }
        return sums[0] == Self.bigEndian(bytes, 16) && sums[1] == Self.bigEndian(bytes, 20) ? nil : "fails its checksum"
    }

    /// Whether a commit frame with the WAL's salts follows `offset`.
    private func hasCommit(in wal: OpenFile, after offset: Int, salts: [UInt8]) -> Bool {
        var offset = offset
        while let header = read(wal, at: offset, count: 24), header.count == 24 {
            if Array(header[8..<16]) == salts, Self.bigEndian(header, 4) > 0 { return true }
            offset += 24 + pageSize
        }
        return false
    }

    private static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
