/// One row added, removed or changed, for a listing of the differences.
public struct RowChange: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case added, removed, changed
    }

    public let table: String
    public let kind: Kind
    /// The row's key, column by column.
    public let key: [DatabaseValue]
    /// The compared columns' values in the first database (nil when added).
    public let before: [DatabaseValue]?
    /// … and in the second (nil when removed).
    public let after: [DatabaseValue]?
    /// For a change, the positions of the compared columns whose values differ, exactly (a
    /// real by its bits, text by its bytes, which `before` and `after` cannot always show).
    public let changedColumns: [Int]
}
