/// RFC 4180 CSV exactly as the sqlite3 shell writes it with `.headers on` and `.mode csv`:
/// CRLF line ends; a field is quoted (its quotes doubled) when it is empty or holds a
/// control character, a space, `"`, `'`, a comma or any byte from 0x7F up; NULL prints as
/// the null text, unquoted; reals as SQLite renders them. The header comes with a result
/// set's first row, so an empty result prints nothing.
final class CSVResultWriter: BufferedResultWriter {
    private var layout = RowLayout(columns: 0, nullText: "", blobEncoding: .hex)

    override func begin(columns: [String]) throws {
        try super.begin(columns: columns)
        // A text format always has an encoding (`ResultFormat.makeWriter`).
        layout = RowLayout(columns: columns.count, nullText: options.nullText, blobEncoding: options.blobEncoding ?? .hex)
    }

    override func writeRows(of statement: Statement) throws -> Int {
        guard try statement.step() else { return 0 }
        if rows == 0, options.header {
            try output.append { bytes in
                for (index, name) in columns.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    field.removeAll(keepingCapacity: true)
                    field.append(contentsOf: name.utf8)
                    Self.appendField(field, to: &bytes)
                }
                bytes.append(13)
                bytes.append(10)
            }
        }
        // The values go from SQLite to the output through C, formatted on a second thread.
        let written = try RowPipe.run(statement, layout: layout, json: false, output: output)
        rows += written
        return written
    }

    /// The shell's `needCsvQuote` rule.
    private static func needsQuotes(_ byte: UInt8) -> Bool {
        byte < 0x21 || byte == 0x22 || byte == 0x27 || byte == 0x2C || byte >= 0x7F
    }

    private static func appendField<Field: Collection>(_ field: Field, to bytes: inout [UInt8]) where Field.Element == UInt8 {
        guard field.isEmpty || field.contains(where: needsQuotes) else {
            return bytes.append(contentsOf: field)
        }
        bytes.append(0x22)
        for byte in field {
            bytes.append(byte)
            if byte == 0x22 { bytes.append(0x22) }
        }
        bytes.append(0x22)
    }
}
