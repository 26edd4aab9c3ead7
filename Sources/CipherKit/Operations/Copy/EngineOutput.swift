import CCipherProvider
import FoundationEssentials
import Glibc

/// The page engine's target file, written around the page cache where the file system lets it.
///
/// Every byte of the copy is new, and nothing reads most of it again, so the kernel's copy of
/// each chunk into the page cache buys nothing and costs about as much CPU as the chunk's
/// crypto, then leaves the fsync a gigabyte of dirty pages to write. A chunk whose offset,
/// length and buffer are whole blocks goes straight from the engine's buffer to the disk
/// (`O_DIRECT`); any other (the last chunk of a file of small pages), and every chunk where
/// the file system refuses such writes, goes through the page cache with its write-back
/// started at once. Durability is unchanged: the caller fsyncs the file either way.
final class EngineOutput {
    /// The alignment direct writes need here: a block of any file system of 4 KiB or less.
    static let alignment = 4096

    private let path: String
    private let buffered: Int32
    /// -1 without direct writes.
    private let direct: Int32

    /// Opens the existing, empty file at `path` and reserves `bytes` of it.
    ///
    /// - Throws: `CipherKitError.fileAccess`, or `.outOfSpace` when the disk cannot hold `bytes`.
    init(path: String, bytes: Int) throws {
        self.path = path
        buffered = open(path, O_WRONLY | O_CLOEXEC)
        guard buffered >= 0 else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
        direct = cipherfile_open_direct(path)
        let reserved = cipherfile_preallocate(buffered, Int64(bytes))
        if reserved != 0, reserved != EOPNOTSUPP, reserved != EINVAL, reserved != ENOSYS {
            closeFiles()
            throw failure(reserved)
        }
    }

    func closeFiles() {
        if direct >= 0 { close(direct) }
        close(buffered)
    }

    /// Writes `count` bytes at `offset`.
    ///
    /// - Throws: `CipherKitError.outOfSpace` or `.fileAccess`.
    func write(_ buffer: UnsafeRawPointer, count: Int, at offset: off_t) throws {
        let alignment = Self.alignment
        if direct >= 0, Int(offset) % alignment == 0, count % alignment == 0, Int(bitPattern: buffer) % alignment == 0 {
            let error = FileOperations.writeFully(direct, from: buffer, count: count, at: offset)
            // EINVAL: the file system wants another alignment; the page cache takes the chunk whole.
            guard let error, error == EINVAL else {
                if let error { throw failure(error) }
                return
            }
        }
        if let error = FileOperations.writeFully(buffered, from: buffer, count: count, at: offset) { throw failure(error) }
        // Starts the chunk's write-back now, so that the caller's fsync has little left to wait for.
        cipherpage_start_writeback(buffered, Int64(offset), Int64(count))
    }

    private func failure(_ error: Int32) -> CipherKitError {
        [ENOSPC, EFBIG, EDQUOT].contains(error)
            ? CipherKitError.outOfSpace(path: path) : CipherKitError.fileAccess(path: path, reason: String(cString: strerror(error)))
    }
}
