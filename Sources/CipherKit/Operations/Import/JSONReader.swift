/// Reads objects from a JSON array (`json`) or one after another (`jsonl`: one a line, or
/// blank-separated when an object spans lines), each parsed from the stream as it comes
/// (`JSONParser`), so memory holds one object, not the whole input. A row keeps its object's
/// keys in the order written; which keys become columns is the importer's to decide. After
/// the array's `]`, or after an object on its last line, only blanks may follow.
struct JSONReader: ImportRowSource {
    private var parser: JSONParser
    private let array: Bool
    private var started = false
    /// Set at the array's closing bracket: later calls find no more objects.
    private var finished = false

    init(_ input: @escaping () throws -> [UInt8]?, format: ImportFormat) {
        parser = JSONParser(ByteStream(input))
        array = format == .json
    }

    func header() throws -> [String]? { nil }

    mutating func next() throws -> ImportRow? {
        guard try array ? arrayElementStart() : lineStart() else { return nil }
        try parser.skipBlanks()
        let line = parser.line
        guard try parser.peek() == UInt8(ascii: "{") else {
            throw ImportError.malformed(line: line, reason: array ? "an element of the array is not a JSON object" : "not a JSON object")
        }
        let members = try parser.members()
        if !array { try restOfLine() }
        var keys: [String] = [], values: [ImportValue] = []
        var seen = Set<String>()
        for member in members {
            guard seen.insert(member.key).inserted else {
                throw ImportError.malformed(line: line, reason: "key '\(member.key)' appears twice in the object")
            }
            keys.append(member.key)
            do {
                values.append(try ImportValue(member.value))
            } catch let tag as JSONTag.Malformed {
                throw ImportError.malformed(line: line, reason: "key '\(member.key)': " + tag.reason)
            }
        }
        return ImportRow(line: line, keys: keys, values: values)
    }

    /// Moves to the next object of a jsonl input; false at the end.
    private mutating func lineStart() throws -> Bool {
        try parser.skipBlanks()
        return try parser.peek() != nil
    }

    /// After a jsonl object: nothing but blanks to the end of its line.
    private mutating func restOfLine() throws {
        while let byte = try parser.peek(), byte != 0x0A {
            guard byte == 0x20 || byte == 0x09 || byte == 0x0D else {
                throw parser.failure("text after the object on its line (jsonl holds one object a line)")
            }
            _ = try parser.take()
        }
    }

    /// Moves past `[` before the first element or `,` between two; false at the closing `]`,
    /// after which only blanks may follow.
    private mutating func arrayElementStart() throws -> Bool {
        guard !finished else { return false }
        try parser.skipBlanks()
        let line = parser.line
        let byte = try parser.take()
        if !started {
            guard byte == UInt8(ascii: "[") else {
                if byte == nil { return false }
                throw ImportError.malformed(line: line, reason: "json input must be one array of objects (jsonl: one object a line)")
            }
            started = true
            try parser.skipBlanks()
            if try parser.peek() == UInt8(ascii: "]") {
                _ = try parser.take()
                return try end()
            }
            return true
        }
        if byte == UInt8(ascii: "]") { return try end() }
        guard byte == UInt8(ascii: ",") else {
            throw ImportError.malformed(line: line, reason: byte == nil ? "the array is not closed with ']'" : "expected ',' or ']' between the array's objects")
        }
        return true
    }

    /// The array is closed: anything but blanks after it is an error.
    private mutating func end() throws -> Bool {
        finished = true
        try parser.skipBlanks()
        if try parser.peek() != nil { throw parser.failure("text after the end of the JSON array") }
        return false
    }
}
