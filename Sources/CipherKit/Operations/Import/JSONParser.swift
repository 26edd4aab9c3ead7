/// Reads JSON values straight from an import's byte stream, strictly (RFC 8259): numbers
/// keep their literals, strings their bytes (`\u0000` included), objects their members in
/// order; anything else (a leading zero, a raw control character in a string, bytes that are
/// not UTF-8, a lone surrogate) is an error naming the line it is on.
/// See https://www.rfc-editor.org/rfc/rfc8259
struct JSONParser {
    private(set) var stream: ByteStream
    /// Hostile input (`[[[[…`) must not exhaust the stack.
    private static let maximumDepth = 512
    /// Where a run of string bytes stops: the closing quote, an escape, a control character.
    private static let stringStops = ByteSet([0x22, 0x5C] + Array(0..<0x20))

    init(_ stream: ByteStream) {
        self.stream = stream
    }

    /// The line the next byte is on.
    var line: Int { stream.line }

    /// Moves past blanks (space, tab, line feed, carriage return).
    mutating func skipBlanks() throws {
        while let byte = try stream.peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { _ = try stream.next() }
    }

    /// The next byte without taking it; nil at the end.
    mutating func peek() throws -> UInt8? {
        try stream.peek()
    }

    /// Takes the next byte.
    mutating func take() throws -> UInt8? {
        try stream.next()
    }

    /// One value, blanks before it skipped.
    mutating func value(depth: Int = 0) throws -> JSONTree {
        try skipBlanks()
        guard depth < Self.maximumDepth else { throw failure("arrays and objects nested deeper than \(Self.maximumDepth)") }
        switch try stream.peek() {
        case UInt8(ascii: "{")?: return .object(try members(depth: depth))
        case UInt8(ascii: "[")?: return try array(depth: depth)
        case 0x22?: return .string(try string())
        case UInt8(ascii: "t")?: try word("true"); return .bool(true)
        case UInt8(ascii: "f")?: try word("false"); return .bool(false)
        case UInt8(ascii: "n")?: try word("null"); return .null
        case let byte? where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte): return .number(try number())
        case nil: throw failure("the input ends where a value should be")
        case let byte?: throw failure("'\(Self.shown(byte))' cannot start a JSON value")
        }
    }

    /// An object's members, in order (the caller has seen its `{`).
    mutating func members(depth: Int = 0) throws -> [JSONMember] {
        try expect(UInt8(ascii: "{"))
        var members: [JSONMember] = []
        try skipBlanks()
        if try stream.peek() == UInt8(ascii: "}") {
            _ = try stream.next()
            return members
        }
        while true {
            try skipBlanks()
            guard try stream.peek() == 0x22 else { throw failure("expected a key in double quotes") }
            let key = String(decoding: try string(), as: UTF8.self)
            try skipBlanks()
            try expect(UInt8(ascii: ":"))
            members.append(JSONMember(key: key, value: try value(depth: depth + 1)))
            try skipBlanks()
            let byte = try stream.next()
            if byte == UInt8(ascii: "}") { return members }
            guard byte == UInt8(ascii: ",") else { throw failure("expected ',' or '}' after a member of an object") }
        }
    }

    private mutating func array(depth: Int) throws -> JSONTree {
        try expect(UInt8(ascii: "["))
        var items: [JSONTree] = []
        try skipBlanks()
        if try stream.peek() == UInt8(ascii: "]") {
            _ = try stream.next()
            return .array(items)
        }
        while true {
            items.append(try value(depth: depth + 1))
            try skipBlanks()
            let byte = try stream.next()
            if byte == UInt8(ascii: "]") { return .array(items) }
            guard byte == UInt8(ascii: ",") else { throw failure("expected ',' or ']' after an element of an array") }
        }
    }

    /// A string's bytes, its escapes resolved; the raw bytes must be UTF-8.
    private mutating func string() throws -> [UInt8] {
        try expect(0x22)
        var bytes: [UInt8] = []
        var checkedUpTo = 0
        while true {
            guard try stream.append(to: &bytes, until: Self.stringStops) else { throw failure("a string is not closed") }
            // Escapes produce UTF-8 of their own; only the raw runs between them need checking.
            guard UTF8Validation.isValid(bytes[checkedUpTo...]) else { throw failure("a string holds bytes that are not UTF-8") }
            let byte = try stream.next()
            switch byte {
            case 0x22?:
                return bytes
            case 0x5C?:
                try escape(into: &bytes)
                checkedUpTo = bytes.count
            default:
                throw failure("a string holds a raw control character (write it as an escape, such as \\n or \\u0000)")
            }
        }
    }

    /// An escape after its backslash.
    private mutating func escape(into bytes: inout [UInt8]) throws {
        let byte = try stream.next()
        switch byte {
        case 0x22?, 0x5C?, 0x2F?: bytes.append(byte!)
        case UInt8(ascii: "b")?: bytes.append(0x08)
        case UInt8(ascii: "f")?: bytes.append(0x0C)
        case UInt8(ascii: "n")?: bytes.append(0x0A)
        case UInt8(ascii: "r")?: bytes.append(0x0D)
        case UInt8(ascii: "t")?: bytes.append(0x09)
        case UInt8(ascii: "u")?: try unicodeEscape(into: &bytes)
        default: throw failure("a string holds an unknown escape")
        }
    }

    /// `\uXXXX` (a surrogate pair as two of them) as UTF-8.
    private mutating func unicodeEscape(into bytes: inout [UInt8]) throws {
        var scalar = try hexQuad()
        if (0xD800...0xDBFF).contains(scalar) {
            guard try stream.next() == 0x5C, try stream.next() == UInt8(ascii: "u") else { throw failure("a string holds a lone surrogate") }
            let low = try hexQuad()
            guard (0xDC00...0xDFFF).contains(low) else { throw failure("a string holds a lone surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw failure("a string holds a lone surrogate")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw failure("a string holds an escape that is not a character") }
        bytes.append(contentsOf: UTF8.encode(unicode)!)
    }

    private mutating func hexQuad() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try stream.next(), let digit = Self.hexValue(byte) else { throw failure("a \\u escape needs four hex digits") }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// A number's literal, checked against the grammar: `-`, then `0` or digits without a
    /// leading zero, an optional fraction and an optional exponent.
    private mutating func number() throws -> [UInt8] {
        var literal: [UInt8] = []
        if try stream.peek() == UInt8(ascii: "-") { literal.append(try stream.next()!) }
        guard try digits(into: &literal) > 0 else { throw failure("a number needs a digit after '-'") }
        let integerDigits = literal.drop { $0 == UInt8(ascii: "-") }
        if integerDigits.count > 1, integerDigits.first == UInt8(ascii: "0") { throw failure("a number has a leading zero") }
        if try stream.peek() == UInt8(ascii: ".") {
            literal.append(try stream.next()!)
            guard try digits(into: &literal) > 0 else { throw failure("a number needs a digit after '.'") }
        }
        if let byte = try stream.peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            literal.append(try stream.next()!)
            if let sign = try stream.peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { literal.append(try stream.next()!) }
            guard try digits(into: &literal) > 0 else { throw failure("a number needs a digit in its exponent") }
        }
        return literal
    }

    private mutating func digits(into literal: inout [UInt8]) throws -> Int {
        var count = 0
        while let byte = try stream.peek(), (0x30...0x39).contains(byte) {
            literal.append(try stream.next()!)
            count += 1
        }
        return count
    }

    private mutating func word(_ text: String) throws {
        for expected in text.utf8 {
            guard try stream.next() == expected else { throw failure("not valid JSON (expected '\(text)')") }
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard try stream.next() == byte else { throw failure("expected '\(Self.shown(byte))'") }
    }

    /// An error naming the line the parser is on.
    func failure(_ reason: String) -> ImportError {
        .malformed(line: stream.line, reason: reason)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    /// A byte for a message: printable ASCII as itself, anything else in hex.
    private static func shown(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "0x" + String(byte, radix: 16)
    }
}
