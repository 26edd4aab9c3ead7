/// Collects output bytes and hands them to a sink in large chunks (64 KiB by default), so
/// result writers never make one write per value.
public final class OutputBuffer {
    /// The pending bytes are `storage[0..<count]`; the rest is room for the next ones.
    private var storage: UnsafeMutableRawBufferPointer
    private var count = 0
    private let capacity: Int
    /// Where `append` lets a writer collect bytes as an array before they are copied in.
    private var scratch: [UInt8] = []
    private let sink: (UnsafeRawBufferPointer) throws -> Void

    /// `sink` receives each full chunk, and the rest on `flush()`; what it throws (a closed
    /// pipe, say) ends the writing.
    public init(capacity: Int = 1 << 16, sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.capacity = capacity
        self.sink = sink
        storage = .allocate(byteCount: capacity + 4096, alignment: 16)
    }

    deinit {
        storage.deallocate()
    }

    /// Lets `body` append to an array of pending bytes, then flushes when the chunk is full.
    @inline(__always)
    func append(_ body: (inout [UInt8]) throws -> Void) throws {
        scratch.removeAll(keepingCapacity: true)
        try body(&scratch)
        try scratch.withUnsafeBytes { try appendBytes($0) }
    }

    public func write(_ string: String) throws {
        var string = string
        try string.withUTF8 { try appendBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Hands everything collected to the sink.
    public func flush() throws {
        guard count > 0 else { return }
        defer { count = 0 }
        try sink(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Copies `bytes` in, then flushes when the chunk is full.
    func appendBytes(_ bytes: UnsafeRawBufferPointer) throws {
        if count + bytes.count > storage.count { grow(to: max(storage.count * 2, count + bytes.count)) }
        if let source = bytes.baseAddress, !bytes.isEmpty {
            storage.baseAddress!.advanced(by: count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
        if count >= capacity { try flush() }
    }

    private func grow(to size: Int) {
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        if count > 0 { larger.baseAddress!.copyMemory(from: storage.baseAddress!, byteCount: count) }
        storage.deallocate()
        storage = larger
    }
}
