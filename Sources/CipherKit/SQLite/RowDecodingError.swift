/// A row that cannot be decoded into the type asked for.
public enum RowDecodingError: CipherKitFailure, Equatable {
    /// The type has a property for which the row has no column.
    case noSuchColumn(String)
    /// The type asks for a shape a row does not have (nested objects, arrays).
    case unsupported(String)

    public var message: String {
        switch self {
        case .noSuchColumn(let column): return "no column named '\(column)' in the row"
        case .unsupported(let what): return "a row cannot decode \(what)"
        }
    }

    public var path: String? { nil }

    public var reason: FailureReason { .valueConversion }
}
