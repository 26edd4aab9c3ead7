/// Reads csv (RFC 4180: `"` quotes, `""` inside them, CRLF or LF) or tsv (`\t`, `\n`, `\r`,
/// `\\` escapes) a record at a time: the first record names the columns, and every other
/// must have as many fields. Empty lines are skipped. See https://www.rfc-editor.org/rfc/rfc4180
struct DelimitedReader: ImportRowSource {
    private var stream: ByteStream
    private let separator: UInt8
    private let quotes: Bool
    private var header: [String]?

    init(_ input: @escaping () throws -> [UInt8]?, format: ImportFormat) {
        stream = ByteStream(input)
        separator = format == .tsv ? 0x09 : UInt8(ascii: ",")
        quotes = format == .csv
    }

    mutating func columns() throws -> [String] {
        if let header { return header }
        let names = try record()?.fields.map { String(decoding: $0, as: UTF8.self) } ?? []
        guard !names.isEmpty, !(names.count == 1 && names[0].isEmpty) else { throw ImportError.noColumns }
        header = names
        return names
    }

    mutating func next() throws -> ImportRow? {
        let count = try columns().count
        guard let (line, fields) = try record() else { return nil }
        guard fields.count == count else {
            throw ImportError.malformed(line: line, reason: "\(fields.count) field\(fields.count == 1 ? "" : "s") where the header has \(count)")
        }
        return ImportRow(line: line, values: fields.map { .text($0) })
    }

    /// The next record that is not an empty line, with the line it starts on.
    private mutating func record() throws -> (line: Int, fields: [[UInt8]])? {
        while true {
            let line = stream.line
            guard let fields = try quotes ? csvRecord() : tsvRecord() else { return nil }
            if fields.count == 1, fields[0].isEmpty { continue }
            return (line, fields)
        }
    }

    private mutating func csvRecord() throws -> [[UInt8]]? {
        var fields: [[UInt8]] = [], field: [UInt8] = []
        var quoted = false, started = false, wasQuoted = false
        let line = stream.line
        while let byte = try stream.next() {
            started = true
            if quoted {
                if byte == 0x22 {
                    if try stream.peek() == 0x22 { _ = try stream.next(); field.append(0x22) } else { quoted = false }
                } else {
                    field.append(byte)
                }
            } else if byte == 0x22, field.isEmpty, !wasQuoted {
                quoted = true
                wasQuoted = true
            } else if byte == separator {
                fields.append(field)
                field = []
                wasQuoted = false
            } else if try byte == 0x0A || byte == 0x0D && stream.peek() == 0x0A {
                if byte == 0x0D { _ = try stream.next() }
                fields.append(field)
                return fields
            } else {
                field.append(byte)
            }
        }
        if quoted { throw ImportError.malformed(line: line, reason: "a quoted field is not closed") }
        guard started else { return nil }
        fields.append(field)
        return fields
    }

    private mutating func tsvRecord() throws -> [[UInt8]]? {
        var fields: [[UInt8]] = [], field: [UInt8] = []
        var started = false
        while let byte = try stream.next() {
            started = true
            switch byte {
            case separator:
                fields.append(field)
                field = []
            case 0x0A:
                if field.last == 0x0D { field.removeLast() }
                fields.append(field)
                return fields
            case 0x5C:
                let escaped = try stream.peek()
                let meaning: UInt8? = escaped == UInt8(ascii: "t") ? 0x09 : escaped == UInt8(ascii: "n") ? 0x0A
                    : escaped == UInt8(ascii: "r") ? 0x0D : escaped == 0x5C ? 0x5C : nil
                if let meaning { _ = try stream.next(); field.append(meaning) } else { field.append(byte) }
            default:
                field.append(byte)
            }
        }
        guard started else { return nil }
        fields.append(field)
        return fields
    }
}
