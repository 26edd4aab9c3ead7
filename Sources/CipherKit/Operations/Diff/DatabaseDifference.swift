/// What differs between two databases: their schemas, and each common table's rows.
public struct DatabaseDifference: Equatable, Sendable {
    public var schema: [SchemaChange] = []
    /// The header fields a dump carries that differ.
    public var header: [HeaderFieldChange] = []
    public var tables: [TableDifference] = []
    /// With `DiffRequest.listsRows`: every row that differs, table by table in key order.
    public var rows: [RowChange] = []

    public var identical: Bool { schema.isEmpty && header.isEmpty && !tables.contains(where: \.differs) }
}
