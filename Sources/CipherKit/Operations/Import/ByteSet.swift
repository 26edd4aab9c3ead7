/// A set of bytes, looked up in one step: where a scan of the input stops.
struct ByteSet {
    private var members = [Bool](repeating: false, count: 256)

    init(_ bytes: [UInt8]) {
        for byte in bytes { members[Int(byte)] = true }
    }

    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        members[Int(byte)]
    }
}
