extension QueryError {
    /// This failure without the statement's text when `key` appears in it (a key file given
    /// as the SQL file, say): the statement by its number only, and SQLite's generic message
    /// for its code, which quotes nothing.
    public func hidingText(of key: KeyMaterial) -> QueryError {
        guard key.appears(in: Array(message.utf8)) else { return self }
        let hidden = "its text holds the key and is not shown"
        switch self {
        case .statementFailed(let number, _, let error):
            return .statementFailed(number: number, firstLine: hidden, error: error.generic)
        case .needsWrite(let number, _):
            return .needsWrite(number: number, firstLine: hidden)
        case .unboundPlaceholder(_, let number, _):
            return .unboundPlaceholder(name: "(not shown)", number: number, firstLine: hidden)
        case .mustRunAlone(let number, _):
            return .mustRunAlone(number: number, firstLine: hidden)
        case .tooManyColumns(let number, _, let columns, let most):
            return .tooManyColumns(number: number, firstLine: hidden, columns: columns, most: most)
        case .invalidValue(_, let reason):
            return .invalidValue(text: "(not shown)", reason: reason)
        case .unusedParameter:
            return .unusedParameter(name: "(not shown)")
        case .unusedArguments, .noStatements, .cipherPragma:
            return self
        }
    }
}
