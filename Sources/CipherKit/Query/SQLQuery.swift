/// SQL text and the values bound to its placeholders, in order. The text never holds a
/// value; it holds `?` where each argument goes.
public struct SQLQuery: Equatable, Sendable {
    public let sql: String
    public let arguments: [DatabaseValue]

    public init(sql: String, arguments: [DatabaseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }
}
