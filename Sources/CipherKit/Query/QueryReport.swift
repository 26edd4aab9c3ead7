/// What a query run did.
public struct QueryReport: Equatable, Sendable {
    /// Statements run.
    public var statements: Int
    /// Result sets written (statements that return columns).
    public var resultSets: Int
    /// Rows written, over all result sets.
    public var rows: Int
    /// Rows changed by INSERT, UPDATE and DELETE (committed with `write`).
    public var changes: Int
    /// The format the search found; nil when settings were given or the file is plaintext.
    public var format: CipherFormat?
    public var formatAttempts: Int
}
