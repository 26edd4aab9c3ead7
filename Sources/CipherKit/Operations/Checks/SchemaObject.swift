/// One entry of `sqlite_master`: what verification compares before and after a change.
public struct SchemaObject: Equatable, Hashable, Comparable, Sendable {
    public let type: String
    public let name: String
    public let table: String
    public let sql: String?

    public init(type: String, name: String, table: String, sql: String?) {
        self.type = type
        self.name = name
        self.table = table
        self.sql = sql
    }

    public static func < (lhs: SchemaObject, rhs: SchemaObject) -> Bool {
        (lhs.type, lhs.name) < (rhs.type, rhs.name)
    }
}
