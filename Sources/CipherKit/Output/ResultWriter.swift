/// Writes query results in one format, row by row as they are stepped.
///
/// A run calls `start` once with the number of statements and whether they write, `begin`
/// for each statement that returns columns, `write` for each of its rows (reading the
/// statement's current row in place), `end` after its last row, and `finish` once at the
/// end, which flushes the output.
public protocol ResultWriter: AnyObject {
    func start(statements: Int, write: Bool) throws
    func begin(columns: [String]) throws
    func write(_ statement: Statement) throws
    func end() throws
    func finish() throws
}
