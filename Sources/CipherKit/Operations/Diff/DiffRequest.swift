/// Which two databases to compare, and whether to list the rows that differ.
public struct DiffRequest {
    public var first: OpenRequest
    public var second: OpenRequest
    /// Whether the report keeps each row added, removed or changed (in memory), not only counts.
    public var listsRows = false

    public init(first: OpenRequest, second: OpenRequest) {
        self.first = first
        self.second = second
    }
}
