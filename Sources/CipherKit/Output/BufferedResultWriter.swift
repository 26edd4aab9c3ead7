/// What the result writers share: the output buffer and options, the current result set's
/// columns and row count, a scratch field, and the flush at the end. A format subclasses it
/// and writes rows (and, where it needs to, begins and ends result sets).
class BufferedResultWriter: ResultWriter {
    let output: OutputBuffer
    let options: ResultOptions
    var columns: [String] = []
    /// Rows written in the current result set.
    var rows = 0
    /// Reused for a value that must be looked at before it is written (quoting, escaping).
    var field: [UInt8] = []

    init(output: OutputBuffer, options: ResultOptions) {
        self.output = output
        self.options = options
    }

    func start(statements: Int, write: Bool) throws {}

    func begin(columns: [String]) throws {
        self.columns = columns
        rows = 0
    }

    /// Steps through the rows and writes each with `write`; csv and json have a faster way.
    func writeRows(of statement: Statement) throws -> Int {
        var written = 0
        while try statement.step() {
            try write(statement)
            written += 1
        }
        return written
    }

    /// Writes the statement's current row.
    func write(_ statement: Statement) throws {
        // Every format that does not write its rows another way overrides this; reaching it is a bug in CipherKit, not a user error.
        preconditionFailure("\(type(of: self)) must override write(_:)")
    }

    func end() throws {}

    var mostColumns: Int? { nil }

    func finish() throws {
        try output.flush()
    }
}
