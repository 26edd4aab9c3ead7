/// Reads csv (RFC 4180: `"` quotes, `""` inside them, CRLF or LF) or tsv (`\t`, `\n`, `\r`,
/// `\\` escapes) a record at a time: the first record names the columns, and every other
/// must have as many fields. Empty lines are skipped (but for a header of one column). A quoted csv field must end at its
/// closing quote (`"x"y` is an error, where the shell would keep `xy`). A record's fields
/// are one run of bytes with their ends, read in runs between the bytes that matter, so a
/// field costs no allocation of its own. See https://www.rfc-editor.org/rfc/rfc4180
struct DelimitedReader: ImportRowSource {
    private var stream: ByteStream
    private let separator: UInt8
    private let quotes: Bool
    private var names: [String]?
    /// Where an unquoted field's run stops: the separator, a line end, a quote (csv) or a
    /// backslash (tsv).
    private let plainStops: ByteSet
    private static let quotedStops = ByteSet([0x22])

    init(_ input: @escaping () throws -> [UInt8]?, format: ImportFormat) {
        stream = ByteStream(input)
        separator = format == .tsv ? 0x09 : UInt8(ascii: ",")
        quotes = format == .csv
        plainStops = ByteSet([separator, 0x0A, 0x0D, quotes ? 0x22 : 0x5C])
    }

    mutating func header() throws -> [String]? {
        if let names { return names }
        // No line at all names no columns, which an import into an existing table allows.
        let names = try record().map { row in (0..<row.count).map { String(decoding: row.field($0), as: UTF8.self) } } ?? []
        self.names = names
        return names
    }

    mutating func next() throws -> ImportRow? {
        let count = try header()?.count ?? 0
        guard let row = try record() else { return nil }
        guard row.count == count else {
            throw ImportError.malformed(line: row.line, reason: "\(row.count) field\(row.count == 1 ? "" : "s") where the header has \(count)")
        }
        return row
    }

    /// The next record that is not an empty line, with the line it starts on. Under a header
    /// of one column an empty line is a record, its one field empty: it is how a NULL or an
    /// empty string of a one-column table is written.
    private mutating func record() throws -> ImportRow? {
        while true {
            let line = stream.line
            guard let (bytes, ends) = try fields() else { return nil }
            if ends == [0], names?.count != 1 { continue }
            return ImportRow(line: line, bytes: bytes, ends: ends)
        }
    }

    /// One record: its fields' bytes end to end, and where each ends; nil at the end.
    private mutating func fields() throws -> (bytes: [UInt8], ends: [Int])? {
        var bytes: [UInt8] = [], ends: [Int] = []
        var fieldStart = 0, started = false, quotedOnce = false
        let line = stream.line
        while true {
            let stopped = try stream.append(to: &bytes, until: plainStops)
            if !bytes.isEmpty { started = true }
            guard stopped, let byte = try stream.next() else {
                guard started || !ends.isEmpty else { return nil }
                ends.append(bytes.count)
                return (bytes, ends)
            }
            started = true
            switch byte {
            case separator:
                ends.append(bytes.count)
                fieldStart = bytes.count
                quotedOnce = false
            case 0x0A:
                ends.append(bytes.count)
                return (bytes, ends)
            case 0x0D:
                // A raw CR before LF ends the line (CRLF); a CR that a tsv `\r` stands for is
                // the field's own, and stays.
                if try stream.peek() == 0x0A {
                    _ = try stream.next()
                    ends.append(bytes.count)
                    return (bytes, ends)
                }
                bytes.append(byte)
            case 0x22 where bytes.count == fieldStart && !quotedOnce:
                quotedOnce = true
                try quotedField(into: &bytes, line: line)
                try requireFieldEnd()
            case 0x5C where !quotes:
                try escape(into: &bytes)
            default:
                bytes.append(byte)
            }
        }
    }

    /// The rest of a quoted field, its closing quote taken; `""` inside is one quote.
    private mutating func quotedField(into bytes: inout [UInt8], line: Int) throws {
        while true {
            guard try stream.append(to: &bytes, until: Self.quotedStops), try stream.next() != nil else {
                throw ImportError.malformed(line: line, reason: "a quoted field is not closed")
            }
            guard try stream.peek() == 0x22 else { return }
            _ = try stream.next()
            bytes.append(0x22)
        }
    }

    /// After a quoted field's closing quote: a separator, a line end or the end of the input.
    private mutating func requireFieldEnd() throws {
        guard let byte = try stream.peek(), byte != separator, byte != 0x0A, byte != 0x0D else { return }
        throw ImportError.malformed(line: stream.line, reason: "text after the closing quote of a quoted field (a quote inside a field is written \"\")")
    }

    /// A tsv escape after its backslash: `\t`, `\n`, `\r` or `\\`; anything else is kept as written.
    private mutating func escape(into bytes: inout [UInt8]) throws {
        let escaped = try stream.peek()
        let meaning: UInt8? = escaped == UInt8(ascii: "t") ? 0x09 : escaped == UInt8(ascii: "n") ? 0x0A
            : escaped == UInt8(ascii: "r") ? 0x0D : escaped == 0x5C ? 0x5C : nil
        if let meaning {
            _ = try stream.next()
            bytes.append(meaning)
        } else {
            bytes.append(0x5C)
        }
    }
}
