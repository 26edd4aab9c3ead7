/// The first column of each row, unquoted, one a line (LF): for `while read` loops and
/// `$(...)` in shell scripts. NULL prints as the null text.
final class ValueResultWriter: ResultWriter {
    private let output: OutputBuffer
    private let options: ResultOptions
    private var hasColumn = false

    init(output: OutputBuffer, options: ResultOptions) {
        self.output = output
        self.options = options
    }

    func begin(columns: [String]) throws {
        hasColumn = !columns.isEmpty
    }

    func write(_ statement: Statement) throws {
        guard hasColumn else { return }
        try output.append { bytes in
            TextRendering.append(column: 0, of: statement, options: options, to: &bytes)
            bytes.append(10)
        }
    }

    func end() throws {}

    func finish() throws {
        try output.flush()
    }
}
