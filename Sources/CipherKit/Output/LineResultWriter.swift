/// `column = value` lines, names right-aligned to the longest, a blank line between rows,
/// as the sqlite3 shell's `.mode line`.
final class LineResultWriter: BufferedResultWriter {
    private var labels: [[UInt8]] = []
    /// Rows written over all result sets: a blank line goes before every one but the first.
    private var records = 0

    override func begin(columns: [String]) throws {
        try super.begin(columns: columns)
        let width = columns.map(\.count).max() ?? 0
        labels = columns.map { Array((String(repeating: " ", count: width - $0.count) + $0 + " = ").utf8) }
    }

    override func write(_ statement: Statement) throws {
        try output.append { bytes in
            if records > 0 { bytes.append(10) }
            for index in 0..<labels.count {
                bytes.append(contentsOf: labels[index])
                TextRendering.append(column: index, of: statement, options: options, to: &bytes)
                bytes.append(10)
            }
        }
        records += 1
    }
}
