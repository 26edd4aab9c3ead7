/// Compares one table's rows in two databases by walking both in key order side by side
/// (a merge join), so memory holds two rows whatever the size. Values are compared exactly
/// (`ExactValue`): by storage class, a real by its bits, text by its bytes.
enum TableComparison {
    /// - Throws: `DatabaseError` for a failed read.
    static func compare(_ table: String, first: Connection, second: Connection, listing: inout [RowChange]?) throws -> TableDifference {
        let firstColumns = try columns(of: table, in: first), secondColumns = try columns(of: table, in: second)
        let alias = try rowidAlias(table, connections: [first, second], columns: firstColumns + secondColumns)
        let inSecond = Set(secondColumns.filter(\.compared).map(\.name))
        let common = firstColumns.filter { $0.compared && inSecond.contains($0.name) }.map(\.name)
        let key = matchingKey(firstColumns, secondColumns, alias: alias, common: common)
        let shared = common.filter { !key.columns.contains($0) }
        var difference = TableDifference(table: table, key: key.names, columns: shared)
        let select = selection(table, key: key, columns: shared)
        let a = try first.prepare(select), b = try second.prepare(select)
        let keys = key.names.count
        var left = try row(a, keys: keys), right = try row(b, keys: keys)
        while left != nil || right != nil {
            let order = left == nil ? 1 : right == nil ? -1 : KeyOrder.compare(left!.key, right!.key)
            if order < 0 {
                difference.removed += 1
                listing?.append(change(table, .removed, key: left!.key, before: left!.values, after: nil, changed: []))
                left = try row(a, keys: keys)
            } else if order > 0 {
                difference.added += 1
                listing?.append(change(table, .added, key: right!.key, before: nil, after: right!.values, changed: []))
                right = try row(b, keys: keys)
            } else {
                // Keys that sort together may still differ (1 and 1.0, 0.0 and -0.0).
                if left!.key == right!.key, left!.values == right!.values {
                    difference.same += 1
                } else {
                    difference.changed += 1
                    let changed = shared.indices.filter { left!.values[$0] != right!.values[$0] }
                    listing?.append(change(table, .changed, key: left!.key, before: left!.values, after: right!.values, changed: changed))
                }
                left = try row(a, keys: keys)
                right = try row(b, keys: keys)
            }
        }
        return difference
    }

    private struct Column {
        let name: String
        let primaryKey: Int
        /// Not a hidden column of a virtual table (generated columns are compared).
        let compared: Bool
    }

    /// Every column, hidden ones too: any of them shadows a rowid alias.
    private static func columns(of table: String, in connection: Connection) throws -> [Column] {
        try connection.rows("SELECT name, pk, hidden FROM pragma_table_xinfo(?)", arguments: [.text(table)]).map { row in
            Column(name: row[0].textValue ?? "", primaryKey: Int(row[1].integerValue ?? 0), compared: row[2].integerValue != 1)
        }
    }

    /// An alias of the rowid that both tables have and no column of either shadows; nil when
    /// either has no rowid (WITHOUT ROWID) or every alias is a column's name.
    private static func rowidAlias(_ table: String, connections: [Connection], columns: [Column]) throws -> String? {
        guard let alias = RowidAlias.unshadowed(by: columns.map(\.name)) else { return nil }
        let probe = "SELECT " + alias + " FROM " + SQLIdentifier.quote(table) + " LIMIT 0"
        return connections.allSatisfy { (try? $0.prepare(probe)) != nil } ? alias : nil
    }

    /// The primary key both tables have; else the rowid when both have one; else the row.
    private static func matchingKey(_ first: [Column], _ second: [Column], alias: String?, common: [String]) -> RowKey {
        func primaryKey(_ columns: [Column]) -> [String] {
            columns.filter { $0.primaryKey > 0 }.sorted { $0.primaryKey < $1.primaryKey }.map(\.name)
        }
        let key = primaryKey(first)
        if !key.isEmpty, key == primaryKey(second) { return .primaryKey(key) }
        if let alias { return .rowid(alias: alias) }
        return .wholeRow(common)
    }

    /// The key and the compared columns, in key order. Rows whose keys sort together (a
    /// primary key of a rowid table may hold several NULLs; 1 sorts with 1.0) are walked in
    /// the order of their keys' types and then of their values, so equal rows meet whatever
    /// their rowids (only 0.0 and -0.0, which sort together and have one type, stay apart).
    /// Two tables that share no column and no key are compared by their numbers of rows.
    private static func selection(_ table: String, key: RowKey, columns: [String]) -> String {
        let values = columns.map(SQLIdentifier.quote)
        var order = key.terms.map { $0 + " COLLATE BINARY" }
        if case .rowid = key {} else {
            order += key.terms.map { "typeof(\($0))" } + values.flatMap { ["\($0) COLLATE BINARY", "typeof(\($0))"] }
        }
        let list = key.terms + values
        return "SELECT " + (list.isEmpty ? "1" : list.joined(separator: ", ")) + " FROM " + SQLIdentifier.quote(table)
            + (order.isEmpty ? "" : " ORDER BY " + order.joined(separator: ", "))
    }

    private static func row(_ statement: Statement, keys: Int) throws -> (key: [ExactValue], values: [ExactValue])? {
        guard try statement.step() else { return nil }
        let values = (0..<statement.columnCount).map { ExactValue(column: $0, of: statement) }
        return (Array(values[..<keys]), Array(values[keys...]))
    }

    private static func change(
        _ table: String, _ kind: RowChange.Kind, key: [ExactValue], before: [ExactValue]?, after: [ExactValue]?, changed: [Int]
    ) -> RowChange {
        RowChange(table: table, kind: kind, key: key.map(\.databaseValue), before: before?.map(\.databaseValue),
                  after: after?.map(\.databaseValue), changedColumns: changed)
    }
}
