/// Why an import wrote nothing. Every error about the input names its line.
public enum ImportError: CipherKitFailure, Equatable {
    /// A line of the input that does not parse, or does not fit the columns.
    case malformed(line: Int, reason: String)
    /// An input column (a header's name, an object's key) the table does not have.
    case unknownColumn(String, line: Int)
    /// A value after the first batch that the type its column was given from that batch
    /// would change.
    case doesNotFit(line: Int, column: String, type: String)
    /// The input names no column.
    case noColumns
    /// The primary key named is not a column of the input.
    case unknownPrimaryKey(String)

    public var message: String {
        switch self {
        case .malformed(let line, let reason):
            return "line \(line) of the input: \(reason); nothing was imported"
        case .unknownColumn(let name, let line):
            return "line \(line) of the input: the table has no column '\(name)'; nothing was imported"
        case .doesNotFit(let line, let column, let type):
            return "line \(line) of the input: column '\(column)' was made \(type) from the first batch of rows, and this value is not "
                + (type == "TEXT" ? "text" : "\(type == "INTEGER" ? "an integer" : "a real") written as SQLite writes one") + "; nothing was imported"
        case .noColumns:
            return "the input names no columns (an empty file, or no header line)"
        case .unknownPrimaryKey(let name):
            return "the primary key '\(name)' is not a column of the input"
        }
    }

    public var path: String? { nil }

    public var reason: FailureReason {
        switch self {
        case .unknownColumn: return .unknownColumn
        case .doesNotFit: return .doesNotFit
        case .malformed, .noColumns, .unknownPrimaryKey: return .malformedInput
        }
    }
}
