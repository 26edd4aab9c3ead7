import FoundationEssentials
import Glibc

/// Writes the page engine's converted chunks on the process's writing thread
/// (`WritingThread.pageWrites`), so that the threads doing the crypto never wait for the disk:
/// a thread fills a free buffer, hands it over and goes on with its next chunk while the last
/// one is written (`EngineOutput`, around the page cache, where a write waits for the device).
///
/// Memory is the fixed set of buffers given at the start; a thread wanting one while all are
/// queued waits for the disk. After a failed write the chunks still queued are not written,
/// and every caller is given that failure. Not `threaded` (a copy of one chunk, where there is
/// nothing to overlap), each buffer is written on the thread that hands it over.
final class EngineWriter: @unchecked Sendable {
    private typealias Chunk = (buffer: UnsafeMutableRawBufferPointer, count: Int, offset: off_t)

    private let output: EngineOutput
    private let threaded: Bool
    private let condition = Condition()
    private let all: [UnsafeMutableRawBufferPointer]
    private var free: [UnsafeMutableRawBufferPointer]
    /// Chunks handed over and not yet written (or dropped).
    private var pending = 0
    private var failure: Error?

    /// `buffers` buffers of `bytes` bytes each.
    init(output: EngineOutput, buffers: Int, bytes: Int, threaded: Bool) {
        self.output = output
        self.threaded = threaded
        all = (0..<max(1, buffers)).map { _ in .allocate(byteCount: bytes, alignment: EngineOutput.alignment) }
        free = all
    }

    /// A buffer to fill, waiting while every buffer is queued.
    ///
    /// - Throws: the failure of an earlier write.
    func buffer() throws -> UnsafeMutableRawBufferPointer {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty, failure == nil { condition.wait() }
        if let failure { throw failure }
        return free.removeLast()
    }

    /// Queues the first `count` bytes of `buffer` for writing at `offset` (writes them now
    /// when not threaded).
    func submit(_ buffer: UnsafeMutableRawBufferPointer, count: Int, at offset: off_t) {
        condition.lock()
        pending += 1
        condition.unlock()
        let chunk: Chunk = (buffer, count, offset)
        guard threaded else { return write(chunk) }
        WritingThread.pageWrites.run { [self] in write(chunk) }
    }

    /// Gives back a buffer that will not be written.
    func giveBack(_ buffer: UnsafeMutableRawBufferPointer) {
        condition.lock()
        free.append(buffer)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for every chunk handed over, then frees the buffers (zeroed: they held only
    /// ciphertext, but nothing of a copy outlives it).
    ///
    /// - Throws: the first failed write's error.
    func finish() throws {
        condition.lock()
        while pending > 0 { condition.wait() }
        condition.unlock()
        for buffer in all {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.deallocate()
        }
        if let failure { throw failure }
    }

    /// Writes one chunk, unless an earlier write failed, and gives its buffer back.
    private func write(_ chunk: Chunk) {
        condition.lock()
        let failed = failure != nil
        condition.unlock()
        var result: Error?
        if !failed {
            do { try output.write(chunk.buffer.baseAddress!, count: chunk.count, at: chunk.offset) } catch { result = error }
        }
        condition.lock()
        if failure == nil, let result { failure = result }
        free.append(chunk.buffer)
        pending -= 1
        condition.broadcast()
        condition.unlock()
    }
}
