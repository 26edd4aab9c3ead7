/// Collects output bytes and hands them to a sink in large chunks (64 KiB by default), so
/// result writers never make one write per value.
public final class OutputBuffer {
    private var bytes: [UInt8]
    private let capacity: Int
    private let sink: (UnsafeRawBufferPointer) throws -> Void

    /// `sink` receives each full chunk, and the rest on `flush()`; what it throws (a closed
    /// pipe, say) ends the writing.
    public init(capacity: Int = 1 << 16, sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.capacity = capacity
        self.sink = sink
        bytes = []
        bytes.reserveCapacity(capacity + 4096)
    }

    /// Lets `body` append to the pending bytes, then flushes when the chunk is full.
    @inline(__always)
    func append(_ body: (inout [UInt8]) throws -> Void) throws {
        try body(&bytes)
        if bytes.count >= capacity { try flush() }
    }

    public func write(_ string: String) throws {
        try append { $0.append(contentsOf: string.utf8) }
    }

    /// Hands everything collected to the sink.
    public func flush() throws {
        guard !bytes.isEmpty else { return }
        defer { bytes.removeAll(keepingCapacity: true) }
        try bytes.withUnsafeBytes { try sink($0) }
    }
}
