/// The values a query binds: named ones for `:name`, `@name` and `$name`, and positional
/// ones for `?` in order across the statements.
public struct QueryParameters: Equatable, Sendable {
    /// By name, without its prefix.
    public var named: [String: DatabaseValue]
    public var positional: [DatabaseValue]

    public init(named: [String: DatabaseValue] = [:], positional: [DatabaseValue] = []) {
        self.named = named
        self.positional = positional
    }
}
