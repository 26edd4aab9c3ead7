/// How one table's rows differ, matched by primary key (or rowid).
public struct TableDifference: Equatable, Sendable {
    public let table: String
    /// What the rows are matched by: the primary key's columns, or `rowid`.
    public let key: [String]
    public var added = 0
    public var removed = 0
    public var changed = 0
    public var same = 0
    /// The columns compared: those both tables have.
    public var columns: [String]

    public var differs: Bool { added + removed + changed > 0 }
}
