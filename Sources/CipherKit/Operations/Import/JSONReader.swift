import Foundation

/// Reads objects from a JSON array (`json`) or one a line (`jsonl`); the first object's
/// keys, sorted, are the columns, and a later object may leave keys out (NULL) but not add
/// any. Each object is cut from the stream by its brackets and decoded alone, so memory
/// holds one object, not the whole input.
struct JSONReader: ImportRowSource {
    private var stream: ByteStream
    private let array: Bool
    private var started = false
    /// Set at the array's closing bracket: later calls find no more objects.
    private var finished = false
    private var header: [String]?
    private var first: (line: Int, object: [String: JSONNode])?

    init(_ input: @escaping () throws -> [UInt8]?, format: ImportFormat) {
        stream = ByteStream(input)
        array = format == .json
    }

    mutating func columns() throws -> [String] {
        if let header { return header }
        guard let object = try nextObject() else { throw ImportError.noColumns }
        first = object
        header = object.object.keys.sorted()
        guard header?.isEmpty == false else { throw ImportError.noColumns }
        return header ?? []
    }

    mutating func next() throws -> ImportRow? {
        let columns = try self.columns()
        let object: (line: Int, object: [String: JSONNode])
        if let pending = first {
            object = pending
            first = nil
        } else {
            guard let read = try nextObject() else { return nil }
            object = read
        }
        if let extra = object.object.keys.sorted().first(where: { !columns.contains($0) }) {
            throw ImportError.malformed(line: object.line, reason: "key '\(extra)' is not among the first object's keys")
        }
        return ImportRow(line: object.line, values: columns.map { object.object[$0]?.value ?? .null })
    }

    /// The next object and the line it starts on; nil at the end.
    private mutating func nextObject() throws -> (line: Int, object: [String: JSONNode])? {
        guard let (line, bytes) = try nextValueBytes() else { return nil }
        guard bytes.first == UInt8(ascii: "{") else { throw ImportError.malformed(line: line, reason: "not a JSON object") }
        do {
            return (line, try JSONDecoder().decode([String: JSONNode].self, from: Data(bytes)))
        } catch {
            throw ImportError.malformed(line: line, reason: "not valid JSON")
        }
    }

    /// The bytes of the next top-level value: a line of jsonl, or an element of the array.
    private mutating func nextValueBytes() throws -> (Int, [UInt8])? {
        if array {
            guard try arrayElementStart() else { return nil }
        } else {
            while let byte = try stream.peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { _ = try stream.next() }
            guard try stream.peek() != nil else { return nil }
        }
        let line = stream.line
        var bytes: [UInt8] = [], depth = 0, inString = false, escaped = false
        while let byte = try stream.peek() {
            if !inString, depth == 0, !bytes.isEmpty, [UInt8(ascii: ","), UInt8(ascii: "]"), 0x0A].contains(byte) { break }
            _ = try stream.next()
            bytes.append(byte)
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
            } else if byte == 0x22 {
                inString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
            }
        }
        if inString || depth != 0 { throw ImportError.malformed(line: line, reason: "the JSON value is not closed") }
        while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x0D { bytes.removeLast() }
        return (line, bytes)
    }

    /// Moves past `[` before the first element or `,` between two; false at the closing `]`.
    private mutating func arrayElementStart() throws -> Bool {
        guard !finished else { return false }
        func skipSpace() throws { while let byte = try stream.peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { _ = try stream.next() } }
        try skipSpace()
        let line = stream.line
        let byte = try stream.next()
        if !started {
            guard byte == UInt8(ascii: "[") else { throw ImportError.malformed(line: line, reason: "json input must be one array of objects (jsonl: one object a line)") }
            started = true
            try skipSpace()
            if try stream.peek() == UInt8(ascii: "]") { _ = try stream.next(); finished = true; return false }
            return true
        }
        if byte == UInt8(ascii: "]") { finished = true; return false }
        guard byte == UInt8(ascii: ",") else { throw ImportError.malformed(line: line, reason: "expected ',' or ']' between the array's objects") }
        try skipSpace()
        return true
    }
}
