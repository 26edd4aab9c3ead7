/// What a query runs: SQL text with one or more statements, or one built query.
public enum QuerySource: Equatable, Sendable {
    case script(String)
    /// A built query (`Table(...).query`); its arguments are bound first, to its `?`s.
    case built(SQLQuery)
}
