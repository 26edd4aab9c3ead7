/// A schema object (table, index, view, trigger) that is only in one database, or differs.
public struct SchemaChange: Equatable, Sendable {
    public enum Kind: String, Sendable {
        /// Only in the second database.
        case added
        /// Only in the first.
        case removed
        /// In both, with other SQL.
        case changed
    }

    public let type: String
    public let name: String
    public let kind: Kind
}
