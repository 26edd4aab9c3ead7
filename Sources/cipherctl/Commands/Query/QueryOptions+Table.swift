import CipherKit
import FoundationEssentials
import Glibc

/// A `--table` read: the query that its options build, so that no SQL is written by hand.
extension QueryOptions {
    /// The query `--table` and its options build; nil without `--table`.
    ///
    /// - Throws: `UsageError` for `--table` beside SQL (`sqlGiven`), a table option without
    ///   `--table`, or a malformed column list, order, limit or offset.
    static func tableRead(_ arguments: ParsedArguments, sqlGiven: Bool) throws -> SQLQuery? {
        guard let name = arguments.value(Self.table) else {
            if let option = tableReadOptions.first(where: arguments.has) {
                throw UsageError("\(option.name) goes with \(Self.table.name)", command: arguments.command)
            }
            return nil
        }
        guard !sqlGiven else {
            throw UsageError("\(Self.table.name) reads a table without SQL; drop the SQL arguments or \(Self.file.name)", command: arguments.command)
        }
        var table = try filtered(Table(name), arguments)
        if let order = arguments.value(Self.order) {
            let terms = order.split(separator: ",").map { OrderTerm(parsing: String($0)) }
            guard !terms.isEmpty, terms.allSatisfy({ $0 != nil }) else {
                throw UsageError("\(Self.order.name) needs 'column [asc|desc]' terms separated by commas", command: arguments.command)
            }
            table = table.order(terms.compactMap { $0 })
        }
        let limit = try count(Self.limit, arguments), offset = try count(Self.offset, arguments)
        if limit != nil || offset != nil { table = table.limit(limit, offset: offset) }
        return table.query
    }

    /// `table` narrowed to `--columns` and `--where` (with the `--arg` values for its `?`s).
    private static func filtered(_ table: Table, _ arguments: ParsedArguments) throws -> Table {
        var table = table
        if let list = arguments.value(Self.columns) {
            let columns = list.split(separator: ",").map { $0.trimmingWhitespace() }
            guard !columns.isEmpty, !columns.contains(where: \.isEmpty) else {
                throw UsageError("\(Self.columns.name) needs column names separated by commas", command: arguments.command)
            }
            table = table.select(columns)
        }
        if let condition = arguments.value(Self.condition) {
            let values = try arguments.allValues(Self.argument).map(DatabaseValue.init(parsing:))
            guard let expression = SQLExpression.condition(condition, arguments: values) else {
                throw UsageError("\(Self.condition.name) takes one SQL condition, not more statements after a ';'", command: arguments.command)
            }
            table = table.filter(expression)
        } else if arguments.has(Self.argument) {
            throw UsageError("\(Self.argument.name) values bind '?' in SQL or in \(Self.condition.name); there is neither", command: arguments.command)
        }
        return table
    }

    private static func count(_ option: OptionSpec, _ arguments: ParsedArguments) throws -> Int? {
        guard let text = arguments.value(option) else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw UsageError("\(option.name) needs a whole number, 0 or more", command: arguments.command)
        }
        return value
    }
}
