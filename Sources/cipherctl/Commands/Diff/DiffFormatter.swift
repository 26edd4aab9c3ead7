import CipherKit
import FoundationEssentials
import Glibc

/// Renders a `DatabaseDifference` as lines of text or as one JSON document.
enum DiffFormatter {
    static func text(_ difference: DatabaseDifference) -> String {
        var lines = difference.schema.map { change in
            "\(change.type) '\(change.name)': " + (change.kind == .added ? "only in the second" : change.kind == .removed ? "only in the first" : "differs")
        }
        lines += difference.header.map { "header \($0.field): \($0.first) -> \($0.second)" }
        for table in difference.tables {
            let key = "by " + table.key.joined(separator: ", ")
            lines.append(table.differs
                ? "table '\(table.table)': \(table.added) added, \(table.removed) removed, \(table.changed) changed, \(table.same) the same (\(key))"
                : "table '\(table.table)': the same (\(table.same) rows, \(key))")
        }
        let columns = Dictionary(difference.tables.map { ($0.table, $0) }, uniquingKeysWith: { first, _ in first })
        for row in difference.rows {
            let table = columns[row.table]
            let key = zip(table?.key ?? [], row.key).map { "\($0)=\(literal($1))" }.joined(separator: ", ")
            let mark = row.kind == .added ? "+" : row.kind == .removed ? "-" : "~"
            lines.append("\(mark) \(row.table) \(key): " + values(row, columns: table?.columns ?? []))
        }
        lines.append(difference.identical ? "the databases are the same" : "the databases differ")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The row's values; for a change, only the columns that changed, `old -> new`.
    private static func values(_ row: RowChange, columns: [String]) -> String {
        switch (row.before, row.after) {
        case (let before?, let after?):
            return row.changedColumns.filter { $0 < columns.count }
                .map { "\(columns[$0]) \(literal(before[$0])) -> \(literal(after[$0]))" }.joined(separator: ", ")
        case (let only?, nil), (nil, let only?):
            return zip(columns, only).map { "\($0)=\(literal($1))" }.joined(separator: ", ")
        default:
            return ""
        }
    }

    /// A value as SQL shows it: NULL, 42, 1.5, 'text', X'CAFE'.
    private static func literal(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let x): return String(x)
        case .real(let x): return String(x)
        case .text(let x): return "'" + escaped(x.replacingScalar("'", with: "''")) + "'"
        case .blob(let x): return "X'" + Hex.encode(x).uppercased() + "'"
        }
    }

    /// Control characters written as escapes, so that a CR or an escape sequence from the data
    /// neither hides a change nor reaches the terminal: `\n`, `\r`, `\t`, else `\xHH`.
    private static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func json(_ difference: DatabaseDifference) -> JSONValue {
        let columns = Dictionary(difference.tables.map { ($0.table, $0) }, uniquingKeysWith: { first, _ in first })
        return .object([
            ("identical", .bool(difference.identical)),
            ("schema", .array(difference.schema.map { .object([("type", .string($0.type)), ("name", .string($0.name)), ("change", .string($0.kind.rawValue))]) })),
            ("header", .array(difference.header.map { .object([("field", .string($0.field)), ("first", .integer($0.first)), ("second", .integer($0.second))]) })),
            ("tables", .array(difference.tables.map { table in
                .object([
                    ("table", .string(table.table)), ("key", .array(table.key.map(JSONValue.string))), ("added", .integer(table.added)),
                    ("removed", .integer(table.removed)), ("changed", .integer(table.changed)), ("same", .integer(table.same)),
                ])
            })),
            ("rows", .array(difference.rows.map { row in
                let table = columns[row.table]
                func object(_ values: [DatabaseValue]?) -> JSONValue {
                    values.map { .object(zip(table?.columns ?? [], $0).map { ($0, json($1)) }) } ?? .null
                }
                return .object([
                    ("table", .string(row.table)), ("change", .string(row.kind.rawValue)),
                    ("key", .object(zip(table?.key ?? [], row.key).map { ($0, json($1)) })), ("before", object(row.before)), ("after", object(row.after)),
                ])
            })),
        ])
    }

    /// A value in JSON as query's JSON writes it: a blob as its tagged object, so that it is
    /// never taken for text.
    private static func json(_ value: DatabaseValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .integer(let x): return .integer(x)
        case .real(let x): return x.isFinite ? .number(x) : .null
        case .text(let x): return .string(x)
        case .blob(let x): return JSONTag.blob(x)
        }
    }
}
