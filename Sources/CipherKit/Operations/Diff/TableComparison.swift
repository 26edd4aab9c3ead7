/// Compares one table's rows in two databases by walking both in key order side by side
/// (a merge join), so memory holds two rows whatever the size.
enum TableComparison {
    /// - Throws: `DatabaseError` for a failed read.
    static func compare(_ table: String, first: Connection, second: Connection, listing: inout [RowChange]?) throws -> TableDifference {
        let firstColumns = try columns(of: table, in: first), secondColumns = try columns(of: table, in: second)
        let key = try matchingKey(table, first: first, second: second, firstColumns: firstColumns, secondColumns: secondColumns)
        let names = Set(secondColumns.map(\.name))
        let shared = firstColumns.map(\.name).filter { names.contains($0) && !key.contains($0) }
        var difference = TableDifference(table: table, key: key, columns: shared)
        let select = selection(table, key: key, columns: shared)
        let a = try first.prepare(select), b = try second.prepare(select)
        var left = try row(a, keys: key.count), right = try row(b, keys: key.count)
        while left != nil || right != nil {
            let order = left == nil ? 1 : right == nil ? -1 : KeyOrder.compare(left!.key, right!.key)
            if order < 0 {
                difference.removed += 1
                listing?.append(RowChange(table: table, kind: .removed, key: left!.key, before: left!.values, after: nil))
                left = try row(a, keys: key.count)
            } else if order > 0 {
                difference.added += 1
                listing?.append(RowChange(table: table, kind: .added, key: right!.key, before: nil, after: right!.values))
                right = try row(b, keys: key.count)
            } else {
                if left!.values == right!.values {
                    difference.same += 1
                } else {
                    difference.changed += 1
                    listing?.append(RowChange(table: table, kind: .changed, key: left!.key, before: left!.values, after: right!.values))
                }
                left = try row(a, keys: key.count)
                right = try row(b, keys: key.count)
            }
        }
        return difference
    }

    private struct Column {
        let name: String
        let primaryKey: Int
    }

    private static func columns(of table: String, in connection: Connection) throws -> [Column] {
        try connection.rows("SELECT name, pk FROM pragma_table_xinfo(?) WHERE hidden IN (0, 2, 3)", arguments: [.text(table)]).map { row in
            Column(name: row[0].textValue ?? "", primaryKey: Int(row[1].integerValue ?? 0))
        }
    }

    /// The primary key both tables have; else `rowid` when both have one.
    private static func matchingKey(
        _ table: String, first: Connection, second: Connection, firstColumns: [Column], secondColumns: [Column]
    ) throws -> [String] {
        func primaryKey(_ columns: [Column]) -> [String] {
            columns.filter { $0.primaryKey > 0 }.sorted { $0.primaryKey < $1.primaryKey }.map(\.name)
        }
        let key = primaryKey(firstColumns)
        if !key.isEmpty, key == primaryKey(secondColumns) { return key }
        return ["rowid"]
    }

    private static func selection(_ table: String, key: [String], columns: [String]) -> String {
        let keys = key == ["rowid"] ? ["_rowid_"] : key.map(SQLIdentifier.quote)
        let order = keys.map { $0 + " COLLATE BINARY" }.joined(separator: ", ")
        return "SELECT " + (keys + columns.map(SQLIdentifier.quote)).joined(separator: ", ") + " FROM " + SQLIdentifier.quote(table) + " ORDER BY " + order
    }

    private static func row(_ statement: Statement, keys: Int) throws -> (key: [DatabaseValue], values: [DatabaseValue])? {
        guard try statement.step() else { return nil }
        let values = (0..<statement.columnCount).map { statement.value(at: $0) }
        return (Array(values[..<keys]), Array(values[keys...]))
    }
}
