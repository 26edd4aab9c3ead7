import Foundation

/// Writes the page engine's converted chunks on a thread of its own, so that the threads doing
/// the crypto never wait for the disk: a thread fills a free buffer, hands it over and goes on
/// with its next chunk while this thread writes the last one (`EngineOutput`, around the page
/// cache, where a write waits for the device).
///
/// Memory is the fixed set of buffers given at the start; a thread wanting one while all are
/// queued waits for the disk. After a failed write the rest of the queue is dropped and every
/// caller is given that failure. Without a thread of its own (a copy of one chunk, where there
/// is nothing to overlap), each buffer is written on the thread that hands it over.
final class EngineWriter: @unchecked Sendable {
    private let output: EngineOutput
    private let condition = NSCondition()
    private var all: [UnsafeMutableRawBufferPointer] = []
    private var free: [UnsafeMutableRawBufferPointer] = []
    private var queued: [(buffer: UnsafeMutableRawBufferPointer, count: Int, offset: off_t)] = []
    private var failure: Error?
    private var closing = false
    private let stopped = DispatchSemaphore(value: 0)
    private let threaded: Bool

    /// `buffers` buffers of `bytes` bytes each; starts the writing thread when `threaded`.
    init(output: EngineOutput, buffers: Int, bytes: Int, threaded: Bool) {
        self.output = output
        self.threaded = threaded
        all = (0..<max(1, buffers)).map { _ in .allocate(byteCount: bytes, alignment: EngineOutput.alignment) }
        free = all
        guard threaded else { return }
        let thread = Thread { [self] in run() }
        thread.name = "cipherctl page writer"
        thread.start()
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
    /// without a thread).
    func submit(_ buffer: UnsafeMutableRawBufferPointer, count: Int, at offset: off_t) {
        guard threaded else { return write((buffer, count, offset)) }
        condition.lock()
        queued.append((buffer, count, offset))
        condition.broadcast()
        condition.unlock()
    }

    /// Gives back a buffer that will not be written.
    func giveBack(_ buffer: UnsafeMutableRawBufferPointer) {
        condition.lock()
        free.append(buffer)
        condition.broadcast()
        condition.unlock()
    }

    /// Writes what is queued, stops the thread and frees the buffers (zeroed: they held only
    /// ciphertext, but nothing of a copy outlives it).
    ///
    /// - Throws: the first failed write's error.
    func finish() throws {
        condition.lock()
        closing = true
        condition.broadcast()
        condition.unlock()
        if threaded { stopped.wait() }
        for buffer in all {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.deallocate()
        }
        if let failure { throw failure }
    }

    private func run() {
        while let next = nextQueued() { write(next) }
        stopped.signal()
    }

    /// Writes one buffer and gives it back; keeps the first failure.
    private func write(_ item: (buffer: UnsafeMutableRawBufferPointer, count: Int, offset: off_t)) {
        var result: Error?
        do { try output.write(item.buffer.baseAddress!, count: item.count, at: item.offset) } catch { result = error }
        condition.lock()
        if failure == nil, let result { failure = result }
        free.append(item.buffer)
        condition.broadcast()
        condition.unlock()
    }

    /// The next write, waiting for one; nil when closing with nothing queued. After a failure
    /// the queue is dropped.
    private func nextQueued() -> (buffer: UnsafeMutableRawBufferPointer, count: Int, offset: off_t)? {
        condition.lock()
        defer { condition.unlock() }
        while queued.isEmpty, !closing { condition.wait() }
        if failure != nil {
            free.append(contentsOf: queued.map(\.buffer))
            queued.removeAll()
        }
        return queued.isEmpty ? nil : queued.removeFirst()
    }
}
