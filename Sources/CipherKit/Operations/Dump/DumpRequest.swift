/// What to dump: a database, and optionally only some of its tables.
public struct DumpRequest {
    public var database: OpenRequest
    /// The tables to dump, with their indexes and triggers; empty for the whole database.
    public var tables: [String]

    public init(database: OpenRequest, tables: [String] = []) {
        self.database = database
        self.tables = tables
    }
}
