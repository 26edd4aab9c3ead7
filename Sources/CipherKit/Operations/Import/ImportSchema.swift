/// The CREATE TABLE of an import into a new table: each column typed by the first batch.
enum ImportSchema {
    static func createTable(_ table: String, columns: [String], rows: [ImportRow], primaryKey: String?) -> String {
        let definitions = columns.enumerated().map { index, name -> String in
            let type = columnType(rows, column: index)
            let key = name == primaryKey ? " PRIMARY KEY" : ""
            return SQLIdentifier.quote(name) + (type.map { " " + $0 } ?? "") + key
        }
        return "CREATE TABLE " + SQLIdentifier.quote(table) + "(" + definitions.joined(separator: ", ") + ")"
    }

    /// INTEGER when every value that is not NULL or empty is an integer, REAL when each is
    /// a number, TEXT when any is other text; nil (no type) for blobs, mixed or no values.
    static func columnType(_ rows: [ImportRow], column: Int) -> String? {
        var integer = true, real = true, seen = false
        for row in rows {
            if row.isDelimited {
                let bytes = row.field(column)
                guard !bytes.isEmpty else { continue }
                seen = true
                let text = String(decoding: bytes, as: UTF8.self)
                if !isCanonicalInteger(text) { integer = false }
                if !isNumber(text) { real = false }
                continue
            }
            switch row.values[column] {
            case .null: continue
            case .integer: seen = true
            case .real: seen = true; integer = false
            case .text: seen = true; integer = false; real = false
            case .blob: return nil
            }
        }
        guard seen else { return nil }
        return integer ? "INTEGER" : real ? "REAL" : "TEXT"
    }

    /// `42`, `-7`, but not `007` or `+1`, which an INTEGER column would change.
    private static func isCanonicalInteger(_ text: String) -> Bool {
        guard let value = Int64(text) else { return false }
        return String(value) == text
    }

    private static func isNumber(_ text: String) -> Bool {
        guard let value = Double(text), value.isFinite else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }
    }
}
