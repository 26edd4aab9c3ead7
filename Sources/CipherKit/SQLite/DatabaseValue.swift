/// A value as SQLite stores it: one of its five storage classes.
///
/// See https://www.sqlite.org/datatype3.html
public enum DatabaseValue: Equatable, Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// Whether the value is SQL NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The name of the storage class, as `typeof()` spells it.
    public var storageClassName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }

    /// The integer, or nil when the value is of another class.
    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The text, or nil when the value is of another class.
    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}
