/// `column = value` lines, names right-aligned to the longest, a blank line between rows,
/// as the sqlite3 shell's `.mode line`.
final class LineResultWriter: ResultWriter {
    private let output: OutputBuffer
    private let options: ResultOptions
    private var labels: [[UInt8]] = []
    private var rows = 0

    init(output: OutputBuffer, options: ResultOptions) {
        self.output = output
        self.options = options
    }

    func begin(columns: [String]) throws {
        let width = columns.map(\.count).max() ?? 0
        labels = columns.map { Array((String(repeating: " ", count: width - $0.count) + $0 + " = ").utf8) }
    }

    func write(_ statement: Statement) throws {
        try output.append { bytes in
            if rows > 0 { bytes.append(10) }
            for index in 0..<labels.count {
                bytes.append(contentsOf: labels[index])
                TextRendering.append(column: index, of: statement, options: options, to: &bytes)
                bytes.append(10)
            }
        }
        rows += 1
    }

    func end() throws {}

    func finish() throws {
        try output.flush()
    }
}
