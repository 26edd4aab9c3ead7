/// Why a query did not run to its end. Statements are numbered from 1 and shown by their
/// first line; values are never shown.
public enum QueryError: Error, Equatable, CustomStringConvertible, Sendable {
    /// SQLite refused a statement: it does not compile or failed while running.
    case statementFailed(number: Int, firstLine: String, error: DatabaseError)
    /// A statement would change the database, and `write` was not asked for.
    case needsWrite(number: Int, firstLine: String)
    /// A placeholder no value was given for.
    case unboundPlaceholder(name: String, number: Int, firstLine: String)
    /// A named value that no statement uses.
    case unusedParameter(name: String)
    /// Positional values left over after every `?` was bound.
    case unusedArguments(given: Int, used: Int)
    /// A value given as `TYPE:VALUE` that does not parse.
    case invalidValue(text: String, reason: String)
    /// The input holds no statement.
    case noStatements

    public var description: String {
        switch self {
        case .statementFailed(let number, let firstLine, let error):
            return "statement \(number) (\(firstLine)): \(error.message)"
        case .needsWrite(let number, let firstLine):
            return "statement \(number) (\(firstLine)) changes the database, which is opened read-only"
        case .unboundPlaceholder(let name, let number, let firstLine):
            return "statement \(number) (\(firstLine)): no value for placeholder \(name)"
        case .unusedParameter(let name):
            return "no statement uses the parameter '\(name)'"
        case .unusedArguments(let given, let used):
            return "\(given) positional value\(given == 1 ? "" : "s") given, but the statements have \(used) '?' placeholder\(used == 1 ? "" : "s")"
        case .invalidValue(let text, let reason):
            return "invalid value '\(text)': \(reason)"
        case .noStatements:
            return "no SQL statement to run"
        }
    }

    /// What the user can try, when something helps.
    public var hint: String? {
        switch self {
        case .needsWrite:
            return "add --write to run the input in one read-write transaction"
        case .unboundPlaceholder:
            return "give named values with --param NAME=VALUE and '?' values with --arg VALUE"
        case .invalidValue:
            return "typed values are int:N, real:N, text:T, blob:HEX or null"
        default:
            return nil
        }
    }
}
