/// Why a query did not run to its end. Statements are numbered from 1 and shown by their
/// first line; values are never shown.
public enum QueryError: CipherKitFailure, Equatable {
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
    /// A statement that cannot run inside a transaction (VACUUM, a journal mode change, a
    /// checkpoint) among others, which run in one.
    case mustRunAlone(number: Int, firstLine: String)
    /// A pragma that would change the key or the cipher settings in place (`StatementKind.cipherPragma`);
    /// only its name is kept, never its value.
    case cipherPragma(number: Int, pragma: String)
    /// A result set with more columns than the format prints (`ResultWriter.mostColumns`).
    case tooManyColumns(number: Int, firstLine: String, columns: Int, most: Int)

    public var message: String {
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
        case .mustRunAlone(let number, let firstLine):
            return "statement \(number) (\(firstLine)) cannot run inside a transaction, so it must be the only statement of the input"
        case .cipherPragma(let number, let pragma):
            return "statement \(number) is PRAGMA \(pragma), which would change the key or the cipher settings of the database in place, unchecked; nothing was run"
        case .tooManyColumns(let number, let firstLine, let columns, let most):
            return "statement \(number) (\(firstLine)) returns \(columns) columns, and the format prints \(most == 1 ? "one" : "at most \(most)")"
        }
    }

    public var path: String? { nil }

    public var reason: FailureReason {
        switch self {
        case .statementFailed(_, _, let error): return error.reason
        case .needsWrite: return .needsWrite
        case .unboundPlaceholder: return .unboundPlaceholder
        case .unusedParameter, .unusedArguments, .noStatements, .tooManyColumns: return .invalidQuery
        case .mustRunAlone: return .mustRunAlone
        case .cipherPragma: return .keyStatement
        case .invalidValue: return .invalidValue
        }
    }
}
