/// The bytes of an import's input, one at a time across its chunks, with the line count.
struct ByteStream {
    private let input: () throws -> [UInt8]?
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false
    /// The line the next byte is on (from 1).
    private(set) var line = 1

    init(_ input: @escaping () throws -> [UInt8]?) {
        self.input = input
    }

    /// The next byte, or nil at the end.
    mutating func next() throws -> UInt8? {
        guard try fill() else { return nil }
        let byte = buffer[position]
        position += 1
        if byte == 0x0A { line += 1 }
        return byte
    }

    /// The next byte without taking it.
    mutating func peek() throws -> UInt8? {
        guard try fill() else { return nil }
        return buffer[position]
    }

    /// Whether a byte is there, reading the next chunk when this one is used up.
    private mutating func fill() throws -> Bool {
        while position >= buffer.count {
            guard !ended, let chunk = try input() else {
                ended = true
                return false
            }
            buffer = chunk
            position = 0
        }
        return true
    }
}
