/// The number of rows in one table.
public struct TableRowCount: Equatable, Sendable {
    public let table: String
    public let rows: Int

    public init(table: String, rows: Int) {
        self.table = table
        self.rows = rows
    }
}
