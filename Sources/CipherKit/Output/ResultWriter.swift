/// Writes query results in one format, row by row as they are stepped.
///
/// A run calls `start` once with the number of statements and whether they write, `begin`
/// for each statement that returns columns, `writeRows` to step it through its rows (each
/// read in place, as it is stepped), `end` after its last row, and `finish` once at the
/// end, which flushes the output.
public protocol ResultWriter: AnyObject {
    func start(statements: Int, write: Bool) throws
    func begin(columns: [String]) throws
    /// Steps `statement` to its end, writing every row; returns the rows written.
    /// - Throws: the step's `DatabaseError`, or what the output throws.
    func writeRows(of statement: Statement) throws -> Int
    func end() throws
    func finish() throws
    /// The most columns a result set may have in this format; nil for any number.
    var mostColumns: Int? { get }
}

