/// What to import: into which table of which database, from what, and how.
public struct ImportRequest {
    public var database: OpenRequest
    public var table: String
    public var format: ImportFormat
    /// The input, a chunk at a time; nil at its end.
    public var input: () throws -> [UInt8]?
    /// For a new table: the column that is its primary key.
    public var primaryKey: String?
    public var conflict: ImportConflict = .fail
    /// Add a column the table lacks (untyped) instead of refusing the input.
    public var alter = false
    /// Rows read ahead: the first batch decides a new table's column types.
    public var batchSize = 1000
    /// Cancelled, the import stops, rolls back and throws `CipherKitError.cancelled`.
    public var token = CancellationToken()

    public init(database: OpenRequest, table: String, format: ImportFormat, input: @escaping () throws -> [UInt8]?) {
        self.database = database
        self.table = table
        self.format = format
        self.input = input
    }
}
