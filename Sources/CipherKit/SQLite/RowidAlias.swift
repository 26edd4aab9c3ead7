/// The names a table's rowid answers to, `rowid`, `oid` and `_rowid_`, unless a column of
/// the table has taken the name: then the name means the column.
/// See https://www.sqlite.org/lang_createtable.html#rowid
enum RowidAlias {
    static let names = ["rowid", "oid", "_rowid_"]

    /// The first name no column of `columns` (hidden and generated ones included) shadows;
    /// nil when all three are taken, and the rowid cannot be named at all.
    static func unshadowed(by columns: [String]) -> String? {
        names.first { alias in !columns.contains { SQLIdentifier.matches($0, alias) } }
    }
}
