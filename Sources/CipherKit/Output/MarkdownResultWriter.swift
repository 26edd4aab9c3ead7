/// A Markdown (GitHub) table per result set, written as rows arrive: `|` in values escaped
/// as `\|`, line breaks as `<br>`; a blank line between result sets.
final class MarkdownResultWriter: BufferedResultWriter {
    private var resultSets = 0

    override func write(_ statement: Statement) throws {
        if rows == 0 {
            try output.append { bytes in
                if resultSets > 0 { bytes.append(10) }
                bytes.append(UInt8(ascii: "|"))
                for name in columns {
                    bytes.append(UInt8(ascii: " "))
                    Self.appendEscaped(Array(name.utf8), to: &bytes)
                    bytes.append(contentsOf: Array(" |".utf8))
                }
                bytes.append(10)
                bytes.append(UInt8(ascii: "|"))
                for _ in columns { bytes.append(contentsOf: Array(" --- |".utf8)) }
                bytes.append(10)
            }
            resultSets += 1
        }
        rows += 1
        try output.append { bytes in
            bytes.append(UInt8(ascii: "|"))
            for index in 0..<columns.count {
                bytes.append(UInt8(ascii: " "))
                field.removeAll(keepingCapacity: true)
                TextRendering.append(column: index, of: statement, options: options, to: &field)
                Self.appendEscaped(field, to: &bytes)
                bytes.append(UInt8(ascii: " "))
                bytes.append(UInt8(ascii: "|"))
            }
            bytes.append(10)
        }
    }

    private static func appendEscaped(_ field: [UInt8], to bytes: inout [UInt8]) {
        var index = 0
        while index < field.count {
            let byte = field[index]
            switch byte {
            case UInt8(ascii: "|"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 13 where index + 1 < field.count && field[index + 1] == 10:
                bytes.append(contentsOf: Array("<br>".utf8))
                index += 1
            case 10, 13: bytes.append(contentsOf: Array("<br>".utf8))
            default: bytes.append(byte)
            }
            index += 1
        }
    }
}
