import CSQLCipher

/// Tab-separated values, one row a line (LF): a tab, line feed, carriage return or
/// backslash inside a value is written `\t`, `\n`, `\r`, `\\`, so every row stays one line
/// and splitting on tabs is safe; NULL is the null text as given. The header comes with a
/// result set's first row.
final class TSVResultWriter: BufferedResultWriter {

    override func write(_ statement: Statement) throws {
        if rows == 0, options.header {
            try output.append { bytes in
                for (index, name) in columns.enumerated() {
                    if index > 0 { bytes.append(9) }
                    Self.appendEscaped(Array(name.utf8), to: &bytes)
                }
                bytes.append(10)
            }
        }
        rows += 1
        try output.append { bytes in
            for index in 0..<columns.count {
                if index > 0 { bytes.append(9) }
                let type = statement.columnType(at: index)
                if type == SQLITE_NULL {
                    // The null text is written as given (`\N` for PostgreSQL's COPY, say).
                    bytes.append(contentsOf: options.nullText.utf8)
                    continue
                }
                field.removeAll(keepingCapacity: true)
                TextRendering.append(column: index, of: statement, type: type, options: options, to: &field)
                Self.appendEscaped(field, to: &bytes)
            }
            bytes.append(10)
        }
    }

    private static func appendEscaped(_ field: [UInt8], to bytes: inout [UInt8]) {
        for byte in field {
            switch byte {
            case 9: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 10: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 13: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 92: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "\\"))
            default: bytes.append(byte)
            }
        }
    }
}
