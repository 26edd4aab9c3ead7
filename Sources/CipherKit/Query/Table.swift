/// A small query builder over one table: `Table("users").select(["id", "name"])
/// .filter(.column("age") > 30).order(OrderTerm("name")).limit(10, offset: 20).query`.
///
/// Every identifier is quoted (its quote characters doubled) and every value is bound;
/// raw SQL enters only through `SQLExpression.raw(_:)`.
public struct Table: Equatable, Sendable {
    public let name: String
    private var columns: [String] = []
    private var condition: SQLExpression?
    private var ordering: [OrderTerm] = []
    private var limitCount: Int?
    private var offsetCount: Int?

    public init(_ name: String) {
        self.name = name
    }

    /// Selects these columns, in order (all columns when never called or empty).
    public func select(_ columns: [String]) -> Table {
        var table = self
        table.columns = columns
        return table
    }

    /// Keeps the rows where `expression` holds; a second filter is ANDed with the first.
    public func filter(_ expression: SQLExpression) -> Table {
        var table = self
        table.condition = condition.map { $0 && expression } ?? expression
        return table
    }

    /// Orders by these terms, after any given before.
    public func order(_ terms: [OrderTerm]) -> Table {
        var table = self
        table.ordering += terms
        return table
    }

    public func order(_ terms: OrderTerm...) -> Table { order(terms) }

    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int?, offset: Int? = nil) -> Table {
        var table = self
        table.limitCount = count
        table.offsetCount = offset
        return table
    }

    /// The SELECT statement and its arguments.
    public var query: SQLQuery {
        var sql = "SELECT " + (columns.isEmpty ? "*" : columns.map(SQLIdentifier.quote).joined(separator: ", "))
        sql += " FROM " + SQLIdentifier.quote(name)
        var arguments: [DatabaseValue] = []
        if let condition {
            sql += " WHERE " + condition.sql
            arguments += condition.arguments
        }
        if !ordering.isEmpty {
            sql += " ORDER BY " + ordering.map(\.sql).joined(separator: ", ")
        }
        if limitCount != nil || offsetCount != nil {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(limitCount ?? -1)))
            if let offsetCount {
                sql += " OFFSET ?"
                arguments.append(.integer(Int64(offsetCount)))
            }
        }
        return SQLQuery(sql: sql, arguments: arguments)
    }
}
