/// A piece of SQL for a WHERE clause, with the values it binds.
///
/// Built from quoted column names and bound values (`.column("age") > 30`), or, visibly,
/// from raw SQL text with `SQLExpression.raw(_:)`, which is pasted as written.
public struct SQLExpression: Equatable, Sendable {
    public let sql: String
    public let arguments: [DatabaseValue]

    private init(sql: String, arguments: [DatabaseValue]) {
        self.sql = sql
        self.arguments = arguments
    }

    /// A column, its name quoted: `"we""ird"`.
    public static func column(_ name: String) -> SQLExpression {
        SQLExpression(sql: SQLIdentifier.quote(name), arguments: [])
    }

    /// A bound value: `?` in the text.
    public static func value(_ value: DatabaseValueConvertible) -> SQLExpression {
        SQLExpression(sql: "?", arguments: [value.databaseValue])
    }

    /// Raw SQL, pasted as written, with values for its `?` placeholders. The one entry
    /// point for text that is not built here: keep user input to values, never text.
    public static func raw(_ sql: String, arguments: [DatabaseValue] = []) -> SQLExpression {
        SQLExpression(sql: sql, arguments: arguments)
    }

    /// A condition the user wrote (a filter given as text), in parentheses and closed on a line of
    /// its own, so that a `--` comment in it cannot swallow what follows; nil when it would end
    /// the statement and start another (`1; DROP TABLE t`, `1) ; DROP TABLE t; SELECT (1`).
    public static func condition(_ sql: String, arguments: [DatabaseValue] = []) -> SQLExpression? {
        let wrapped = "(" + sql + "\n)"
        guard SQLText.statements("SELECT 1 WHERE " + wrapped).count == 1 else { return nil }
        return SQLExpression(sql: wrapped, arguments: arguments)
    }

    /// `(left) OP (right)`, the parentheses keeping precedence whatever each side holds.
    private static func binary(_ left: SQLExpression, _ operation: String, _ right: SQLExpression) -> SQLExpression {
        SQLExpression(sql: "(\(left.sql)) \(operation) (\(right.sql))", arguments: left.arguments + right.arguments)
    }

    public static func == (left: SQLExpression, right: DatabaseValueConvertible) -> SQLExpression { binary(left, "=", .value(right)) }
    public static func != (left: SQLExpression, right: DatabaseValueConvertible) -> SQLExpression { binary(left, "<>", .value(right)) }
    public static func < (left: SQLExpression, right: DatabaseValueConvertible) -> SQLExpression { binary(left, "<", .value(right)) }
    public static func <= (left: SQLExpression, right: DatabaseValueConvertible) -> SQLExpression { binary(left, "<=", .value(right)) }
    public static func > (left: SQLExpression, right: DatabaseValueConvertible) -> SQLExpression { binary(left, ">", .value(right)) }
    public static func >= (left: SQLExpression, right: DatabaseValueConvertible) -> SQLExpression { binary(left, ">=", .value(right)) }
    public static func && (left: SQLExpression, right: SQLExpression) -> SQLExpression { binary(left, "AND", right) }
    public static func || (left: SQLExpression, right: SQLExpression) -> SQLExpression { binary(left, "OR", right) }

    public static prefix func ! (expression: SQLExpression) -> SQLExpression {
        SQLExpression(sql: "NOT (\(expression.sql))", arguments: expression.arguments)
    }

    /// `column LIKE ?`.
    public func like(_ pattern: String) -> SQLExpression { SQLExpression.binary(self, "LIKE", .value(pattern)) }

    /// `column IS NULL`.
    public var isNull: SQLExpression { SQLExpression(sql: "(\(sql)) IS NULL", arguments: arguments) }

    /// `column IN (?, ?, …)`; an empty list is never true.
    public func isIn(_ values: [DatabaseValueConvertible]) -> SQLExpression {
        guard !values.isEmpty else { return SQLExpression(sql: "0", arguments: []) }
        let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
        return SQLExpression(sql: "(\(sql)) IN (\(marks))", arguments: arguments + values.map(\.databaseValue))
    }
}
