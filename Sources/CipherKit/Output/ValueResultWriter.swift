/// The one column of each row, unquoted, one a line (LF): for `while read` loops and
/// `$(...)` in shell scripts. NULL prints as the null text. A result set of more columns is
/// refused before it runs (`mostColumns`), so that none is dropped unseen.
final class ValueResultWriter: BufferedResultWriter {
    private var hasColumn = false

    override var mostColumns: Int? { 1 }

    override func begin(columns: [String]) throws {
        try super.begin(columns: columns)
        hasColumn = !columns.isEmpty
    }

    override func write(_ statement: Statement) throws {
        guard hasColumn else { return }
        try output.append { bytes in
            TextRendering.append(column: 0, of: statement, options: options, to: &bytes)
            bytes.append(10)
        }
    }
}
