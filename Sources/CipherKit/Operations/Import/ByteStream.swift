/// The bytes of an import's input, one at a time across its chunks, with the line count.
/// A UTF-8 byte order mark at the very start (as spreadsheet programs write) is skipped, so
/// it never becomes part of the first column's name.
struct ByteStream {
    private let input: () throws -> [UInt8]?
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false
    /// Whether the start has yet to be looked at for a byte order mark.
    private var atStart = true
    /// The line the next byte is on (from 1).
    private(set) var line = 1

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

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

    /// Appends to `bytes` every byte up to the first that `stops` marks (which is left to
    /// read), chunk after chunk; false when the input ends first.
    mutating func append(to bytes: inout [UInt8], until stops: ByteSet) throws -> Bool {
        while try fill() {
            let start = position
            position = buffer.withUnsafeBufferPointer { chunk in
                var index = start
                while index < chunk.count, !stops.contains(chunk[index]) { index += 1 }
                return index
            }
            if position > start {
                bytes.append(contentsOf: buffer[start..<position])
                line += buffer[start..<position].reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
            }
            if position < buffer.count { return true }
        }
        return false
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
            if atStart { try skipByteOrderMark() }
        }
        return true
    }

    /// Skips the mark when the input starts with it; a pipe may hand it over a byte at a time.
    private mutating func skipByteOrderMark() throws {
        while buffer.count < Self.byteOrderMark.count, !ended {
            guard let more = try input() else { ended = true; break }
            buffer.append(contentsOf: more)
        }
        atStart = false
        if buffer.starts(with: Self.byteOrderMark) { position = Self.byteOrderMark.count }
    }
}
