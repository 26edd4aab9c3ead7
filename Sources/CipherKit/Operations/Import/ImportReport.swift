/// What an import did.
public struct ImportReport: Equatable, Sendable {
    public var rows: Int
    /// Rows that changed the table (fewer than `rows` when conflicts were ignored).
    public var changes: Int
    /// Whether the table was created.
    public var created: Bool
    public var columns: [String]
}
