/// The SQL an import runs on the table's shape: the CREATE TABLE of a new table, its columns
/// typed by the first batch (`ImportColumnType`), and the ALTER TABLE that adds a column
/// when asked (`ImportRequest.alter`). Names are quoted, so any name works.
enum ImportSchema {
    static func createTable(_ table: String, columns: [String], types: [ImportColumnType], primaryKey: String?) -> String {
        let definitions = zip(columns, types).map { name, type -> String in
            let key = name == primaryKey ? " PRIMARY KEY" : ""
            return SQLIdentifier.quote(name) + (type.declaration.map { " " + $0 } ?? "") + key
        }
        return "CREATE TABLE " + SQLIdentifier.quote(table) + "(" + definitions.joined(separator: ", ") + ")"
    }

    /// Adds an untyped column, which keeps every value as it is bound.
    static func addColumn(_ table: String, column: String) -> String {
        "ALTER TABLE " + SQLIdentifier.quote(table) + " ADD COLUMN " + SQLIdentifier.quote(column)
    }
}
