/// Why an import wrote nothing.
public enum ImportError: CipherKitFailure, Equatable {
    /// A line of the input that does not parse, or does not fit the columns.
    case malformed(line: Int, reason: String)
    /// An input column the existing table does not have.
    case unknownColumn(String)
    /// The input names no column.
    case noColumns
    /// The primary key named is not a column of the input.
    case unknownPrimaryKey(String)

    public var message: String {
        switch self {
        case .malformed(let line, let reason): return "line \(line) of the input: \(reason); nothing was imported"
        case .unknownColumn(let name): return "the table has no column '\(name)'; nothing was imported"
        case .noColumns: return "the input names no columns (an empty file, or no header line)"
        case .unknownPrimaryKey(let name): return "the primary key '\(name)' is not a column of the input"
        }
    }

    public var path: String? { nil }

    public var reason: FailureReason { .malformedInput }
}
