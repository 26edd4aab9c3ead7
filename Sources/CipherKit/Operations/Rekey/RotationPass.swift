import CCipherProvider
import FoundationEssentials
import Glibc

/// The pages of one rotation in constant extra space, rewritten in place under SQLite's
/// EXCLUSIVE lock, held on this pass's own descriptor for its whole life (an open-file-
/// description lock: closing another descriptor of the file does not drop it).
///
/// Before chunk i is overwritten, its bytes go into the record (`RotationRecord`) and are
/// fsynced; then the chunk is written and fsynced. A crash therefore leaves every chunk
/// whole under one key or the other, but the one the record saved, which may be torn, and
/// which `restoreSavedChunk` puts back. Which key a chunk is under is read from the pages
/// themselves (their HMACs), so a pass in either direction, started over any number of
/// times, only converts what is not yet under its target key. Page 1 goes last: until the
/// end, the new key opens nothing.
final class RotationPass {
    let path: String
    private(set) var record: RotationRecord
    let recordPath: String
    private var descriptor: Int32
    private var wroteDatabase = false

    /// Opens the database and takes its EXCLUSIVE lock, waiting up to `busyMilliseconds`.
    ///
    /// - Throws: `CipherKitError.busy`, `.fileAccess`.
    init(path: String, record: RotationRecord, busyMilliseconds: Int) throws {
        self.path = path
        self.record = record
        recordPath = RotationRecord.path(beside: path)
        descriptor = open(FileOperations.withoutSymbolicLinks(path), O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
        do {
            try lock(busyMilliseconds: busyMilliseconds)
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit { release() }

    /// Closes the descriptor, and with it the lock.
    func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    /// Whether page 1 on disk is under `codec`'s key (neither poisoned nor converted).
    func pageOneOpens(with codec: PageCodec) throws -> Bool {
        var page1 = [UInt8](repeating: 0, count: record.pageSize)
        try page1.withUnsafeMutableBytes { try read(into: $0, count: record.pageSize, at: 0) }
        return try page1.withUnsafeBytes { try codec.damagedPages(in: $0, first: 1, count: 1).isEmpty }
    }

    /// Takes the file's page count as it is now: a rotation done but for its record's removal
    /// left a whole database under the new key, which other programs may have grown since.
    func adoptFileSize() throws {
        guard let size = FileOperations.size(of: FileOperations.withoutSymbolicLinks(path)), size > 0, size % record.pageSize == 0 else {
            throw CipherKitError.fileAccess(path: path, reason: "the file is no whole number of pages")
        }
        record = RotationRecord(settings: record.settings, newSettings: record.newSettings, pages: size / record.pageSize, oldPage1: record.oldPage1,
                                newPage1: record.newPage1)
    }

    /// Whether this pass has written any page of the database.
    var changedDatabase: Bool { wroteDatabase }

    private func lock(busyMilliseconds: Int) throws {
        let deadline = Date().addingTimeInterval(Double(max(0, busyMilliseconds)) / 1000)
        while true {
            let held = cipherfile_exclusive_lock(descriptor)
            if held == 0 { return }
            if held < 0 { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
            guard Date() < deadline else { throw CipherKitError.busy(path: path) }
            usleep(10_000)
        }
    }

    /// Under the lock no other process writes: a journal with content is hot, a -wal with
    /// frames holds pages newer than the file's. Neither may stay beside a rewritten file, and
    /// the file holds the pages the record counts.
    ///
    /// - Throws: `CipherKitError.hotJournal`, `.busy` for a -wal with frames, `.fileAccess`.
    func requireNoCompanions() throws {
        let base = FileOperations.withoutSymbolicLinks(path)
        if (FileOperations.size(of: base + "-journal") ?? 0) > 0 { throw CipherKitError.hotJournal(path: path) }
        if (FileOperations.size(of: base + "-wal") ?? 0) > 0 { throw CipherKitError.busy(path: path) }
        guard FileOperations.size(of: base) == record.pages * record.pageSize else {
            throw CipherKitError.fileAccess(path: path, reason: "the file changed size while it was rotated")
        }
    }

    /// The bytes of the file at `offset`, `count` of them, into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer, count: Int, at offset: Int) throws {
        var done = 0
        while done < count {
            let got = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw CipherKitError.fileAccess(path: path, reason: "the file ended or could not be read") }
            done += got
        }
    }

    /// Writes and fsyncs `bytes` at `offset` of the database.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        wroteDatabase = true
        try Self.writeAndSync(descriptor, bytes, at: offset, path: path)
    }

    static func writeAndSync(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) throws {
        if let failed = FileOperations.writeFully(descriptor, from: bytes.baseAddress!, count: bytes.count, at: off_t(offset)) {
            throw failure(failed, path: path)
        }
        guard fsync(descriptor) == 0 else { throw failure(errno, path: path) }
    }

    static func failure(_ code: Int32, path: String) -> CipherKitError {
        [ENOSPC, EFBIG, EDQUOT].contains(code) ? .outOfSpace(path: path) : .fileAccess(path: path, reason: String(cString: strerror(code)))
    }

    /// Drops the saved chunk from the record (fsynced) once every page is under the target
    /// key, before the lock is released: a record a power loss brings back after its removal
    /// then has nothing to put back over what another process may have written since.
    func forgetSavedChunk() throws {
        let saving = open(recordPath, O_RDWR | O_CLOEXEC)
        guard saving >= 0 else { throw CipherKitError.fileAccess(path: recordPath, reason: String(cString: strerror(errno))) }
        defer { close(saving) }
        guard ftruncate(saving, off_t(record.headerBytes)) == 0, fsync(saving) == 0 else { throw Self.failure(errno, path: recordPath) }
    }

    /// Puts back the chunk the record saved, when its checksum holds and the chunk on disk is
    /// torn (pages under both keys, or a page under neither): it was saved and fsynced before
    /// its pages were overwritten, so it is that chunk whole, under the key it had before. A
    /// chunk whole under one key is left as it is: the pass goes on from it, and a file whose
    /// rotation was done but for the record's removal may hold writes made since.
    func restoreSavedChunk(_ old: PageCodec, _ new: PageCodec) throws {
        guard let bytes = FileManager.default.contents(atPath: recordPath).map({ [UInt8]($0) }), bytes.count > record.headerBytes,
              let saved = RotationRecord.savedChunk(bytes[record.headerBytes...], pageSize: record.pageSize),
              saved.first + saved.bytes.count / record.pageSize - 1 <= record.pages else { return }
        var current = [UInt8](repeating: 0, count: saved.bytes.count)
        try current.withUnsafeMutableBytes { try read(into: $0, count: saved.bytes.count, at: (saved.first - 1) * record.pageSize) }
        if try current.withUnsafeBytes({ try isWhole($0, first: saved.first, codecs: (old, new)) }) { return }
        try saved.bytes.withUnsafeBytes { try write($0, at: (saved.first - 1) * record.pageSize) }
    }

    /// Whether the pages of `chunk` (the first numbered `first`) past page 1 are all under one
    /// key, and page 1, when among them, under either key or poisoned.
    func isWhole(_ chunk: UnsafeRawBufferPointer, first: Int, codecs: (PageCodec, PageCodec)) throws -> Bool {
        let pageSize = record.pageSize, count = chunk.count / pageSize, skip = first == 1 ? 1 : 0
        if count > skip {
            let rest = UnsafeRawBufferPointer(rebasing: chunk[(skip * pageSize)...])
            guard try codecs.0.damagedPages(in: rest, first: first + skip, count: count - skip).isEmpty
                || codecs.1.damagedPages(in: rest, first: first + skip, count: count - skip).isEmpty else { return false }
        }
        guard first == 1 else { return true }
        let page1 = UnsafeRawBufferPointer(rebasing: chunk[0..<pageSize])
        if Array(page1) == record.poisonedPage1 { return true }
        let underOld = try codecs.0.damagedPages(in: page1, first: 1, count: 1).isEmpty
        return try underOld || codecs.1.damagedPages(in: page1, first: 1, count: 1).isEmpty
    }
}
