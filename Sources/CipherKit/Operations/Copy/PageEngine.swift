import CCipherProvider
import Dispatch
import FoundationEssentials
import Glibc

/// Moves every page of an encrypted file to another key, salt or KDF on a thread per core,
/// without SQLite's pager, proving each page as it goes (`PageCodec.convert`: the page
/// written decrypts back, with the new key, to the source page's plaintext); with no target
/// codec, decrypts them into a plaintext database (`PageCodec.decryptPages`); with no source
/// codec, encrypts a plaintext database's pages, each proven the same way
/// (`PageCodec.encryptPages`).
///
/// The file is cut into chunks of about 1 MB; each thread takes the next chunk, reads it and
/// converts it in memory into a buffer that a writing thread (`EngineWriter`) then writes at
/// the same offset of the target, around the page cache where it can (`EngineOutput`), while
/// the thread goes on with its next chunk. Memory is three chunks per thread (and sixteen
/// pages' plaintext while the AES lanes encrypt them), whatever the size of the file. The
/// caller holds the lock that keeps the source's pages still, and fsyncs the target.
struct PageEngine {
    /// The source's codec; nil reads a plaintext database.
    let source: PageCodec?
    /// The new key's codec; nil writes the pages decrypted.
    let target: PageCodec?
    let threads: Int
    /// The page size of both sides.
    let pageSize: Int

    /// Nil when neither side is encrypted, or their page sizes differ.
    init?(source: PageCodec?, target: PageCodec?, threads: Int) {
        guard let pageSize = source?.pageSize ?? target?.pageSize, target.map({ $0.pageSize == pageSize }) ?? true else { return nil }
        self.source = source
        self.target = target
        self.threads = threads
        self.pageSize = pageSize
    }

    /// What went wrong with the pages, when something did.
    enum Failure: Error {
        /// Source pages that fail their HMAC: the source is damaged.
        case damagedSource([Int])
        /// Pages whose written form did not decrypt back to the source's plaintext.
        case roundTrip([Int])
    }

    /// Converts the `pages` whole pages of `sourcePath`, read through SQLite's own open file
    /// (`input`: no descriptor of the source is opened or closed, which would drop the
    /// process's locks on it), into `targetPath` (created, empty, and not open in SQLite).
    ///
    /// - Throws: `Failure`; `CipherKitError.fileAccess`, `.outOfSpace` or `.cancelled`.
    func convert(_ sourcePath: String, reading input: DatabaseFileAccess, pages: Int, into targetPath: String, token: CancellationToken) throws {
        let output = try EngineOutput(path: targetPath, bytes: pages * pageSize)
        defer { output.closeFiles() }
        let chunk = max(1, Self.chunkBytes / pageSize)
        let work = EngineWork(chunks: (pages + chunk - 1) / chunk)
        let workers = max(1, min(threads, work.chunks))
        // Two buffers a thread: one being filled while the other waits for, or is in, its write.
        let writer = EngineWriter(output: output, buffers: 2 * workers, bytes: chunk * pageSize, threaded: work.chunks > 1)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            // Holds only ciphertext (plaintext stays in the C codec's own buffers, wiped there), but
            // is zeroed anyway before it is freed.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk * pageSize, alignment: EngineOutput.alignment)
            defer {
                buffer.initializeMemory(as: UInt8.self, repeating: 0)
                buffer.deallocate()
            }
            while let index = work.next(cancelled: token.isCancelled) {
                let first = index * chunk + 1
                let count = min(chunk, pages - first + 1)
                work.record(Result {
                    try convertChunk(first: first, count: count, buffer: buffer, input: input, writer: writer, paths: (sourcePath, targetPath))
                })
            }
        }
        try writer.finish()
        try work.finish(path: sourcePath)
    }

    /// The bytes of a chunk: large enough that the disk takes each write at full speed.
    static let chunkBytes = 1 << 20

    /// One chunk: read, convert into a writer's buffer, hand it to the writer.
    private func convertChunk(
        first: Int, count: Int, buffer: UnsafeMutableRawBufferPointer, input: DatabaseFileAccess, writer: EngineWriter, paths: (String, String)
    ) throws {
        let bytes = count * pageSize
        let offset = off_t((first - 1) * pageSize)
        guard input.read(into: buffer.baseAddress!, count: bytes, at: Int(offset)) else {
            throw CipherKitError.fileAccess(path: paths.0, reason: "the file ended or changed while it was read")
        }
        let output = try writer.buffer()
        do {
            let read = UnsafeRawBufferPointer(rebasing: buffer[0..<bytes])
            let bad = try convert(read, first: first, count: count, into: UnsafeMutableRawBufferPointer(rebasing: output[0..<bytes]))
            let damaged = bad.filter { !$0.roundTrip }.map(\.pgno)
            if !damaged.isEmpty { throw Failure.damagedSource(damaged) }
            if !bad.isEmpty { throw Failure.roundTrip(bad.map(\.pgno)) }
        } catch {
            writer.giveBack(output)
            throw error
        }
        writer.submit(output, count: bytes, at: offset)
    }
}

extension PageEngine {
    /// The pages of one chunk, by the codecs there are; returns the bad pages.
    private func convert(
        _ read: UnsafeRawBufferPointer, first: Int, count: Int, into written: UnsafeMutableRawBufferPointer
    ) throws -> [(pgno: Int, roundTrip: Bool)] {
        switch (source, target) {
        case let (source?, target?):
            return try source.convert(read, first: first, count: count, to: target, into: written)
        case let (source?, nil):
            return try source.decryptPages(read, first: first, count: count, into: written).map { (pgno: $0, roundTrip: false) }
        case let (nil, target?):
            return try target.encryptPages(read, first: first, count: count, into: written).map { (pgno: $0, roundTrip: true) }
        case (nil, nil):
            preconditionFailure("PageEngine.init refuses two plaintext sides")
        }
    }
}

/// The chunks still to do and the first failure, shared by the engine's threads.
private final class EngineWork: @unchecked Sendable {
    let chunks: Int
    private let lock = Lock()
    private var nextChunk = 0
    private var failure: Error?

    init(chunks: Int) { self.chunks = chunks }

    /// The next chunk to convert; nil when all are taken, one failed, or the run is cancelled.
    func next(cancelled: Bool) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard failure == nil, !cancelled, nextChunk < chunks else { return nil }
        nextChunk += 1
        return nextChunk - 1
    }

    func record(_ result: Result<Void, Error>) {
        guard case .failure(let error) = result else { return }
        lock.lock()
        if failure == nil { failure = error }
        lock.unlock()
    }

    /// Throws the first failure, or `cancelled` when the run stopped before every chunk.
    func finish(path: String) throws {
        if let failure { throw failure }
        if nextChunk < chunks { throw CipherKitError.cancelled(path: path) }
    }
}
