import FoundationEssentials

/// One ORDER BY term: a column, quoted, and a direction.
public struct OrderTerm: Equatable, Sendable {
    public let column: String
    public let descending: Bool

    public init(_ column: String, descending: Bool = false) {
        self.column = column
        self.descending = descending
    }

    /// Parses `name`, `name asc` or `name desc` (any case); the name is taken as written,
    /// quoted later, so any column name works.
    ///
    /// - Returns: nil for an empty name.
    public init?(parsing text: String) {
        var name = text.trimmingWhitespace()
        var descending = false
        let lowered = name.lowercased()
        if lowered.hasSuffix(" desc") {
            descending = true
            name = String(name.dropLast(5))
        } else if lowered.hasSuffix(" asc") {
            name = String(name.dropLast(4))
        }
        name = name.trimmingWhitespace()
        guard !name.isEmpty else { return nil }
        self.init(name, descending: descending)
    }

    var sql: String { SQLIdentifier.quote(column) + (descending ? " DESC" : " ASC") }
}
