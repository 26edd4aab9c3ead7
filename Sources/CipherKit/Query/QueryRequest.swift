/// A query to run: on which database, what, with which values, and whether it may write.
public struct QueryRequest {
    /// The database with its key and settings; the mode follows `write`.
    public var database: OpenRequest
    public var source: QuerySource
    public var parameters: QueryParameters
    /// Open read-write and run everything in one transaction (rolled back on any error);
    /// otherwise the connection is read-only and a statement that writes is refused.
    public var write: Bool

    public init(database: OpenRequest, source: QuerySource, parameters: QueryParameters = QueryParameters(), write: Bool = false) {
        self.database = database
        self.source = source
        self.parameters = parameters
        self.write = write
    }
}
