/// What `diff` matches one table's rows by in two databases.
enum RowKey: Equatable {
    /// The primary key both tables have, column by column.
    case primaryKey([String])
    /// The rowid, named by an alias no column of either table shadows.
    case rowid(alias: String)
    /// The whole row, when the tables share no primary key and the rowid cannot be named (a
    /// WITHOUT ROWID table against a rowid one, or columns named rowid, oid and _rowid_):
    /// rows are then the same or added and removed, never changed.
    case wholeRow([String])

    /// The key's names, as reports show them.
    var names: [String] {
        switch self {
        case .primaryKey(let columns), .wholeRow(let columns): return columns
        case .rowid(let alias): return [alias]
        }
    }

    /// The table's columns the key is made of (none for the rowid, which is no column).
    var columns: [String] {
        switch self {
        case .primaryKey(let columns), .wholeRow(let columns): return columns
        case .rowid: return []
        }
    }

    /// The key's terms in a SELECT: columns quoted, an alias bare (quoted, a name a column
    /// does not have would be a string).
    var terms: [String] {
        switch self {
        case .primaryKey(let columns), .wholeRow(let columns): return columns.map(SQLIdentifier.quote)
        case .rowid(let alias): return [alias]
        }
    }
}
