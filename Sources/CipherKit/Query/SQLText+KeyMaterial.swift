extension SQLText {
    /// The statement's first line for a message (`firstLine`), with any key it holds left
    /// out: a key pragma shows its name only, and `ATTACH … KEY` stops at its KEY.
    static func shownLine(_ sql: String) -> String {
        if StatementKind(sql: sql) == .cipherPragma { return "PRAGMA " + StatementKind.pragmaName(sql) + " …" }
        guard let key = attachKeyOffset(sql) else { return firstLine(sql) }
        return firstLine(String(sql[..<key])) + " KEY …"
    }

    /// Whether the statement's text may hold key material, so that neither it nor SQLite's
    /// message about it (`near "…": syntax error`) may be shown.
    static func holdsKeyMaterial(_ sql: String) -> Bool {
        StatementKind(sql: sql) == .cipherPragma || attachKeyOffset(sql) != nil
    }

    /// Where the KEY of an `ATTACH … KEY …` statement starts; nil for any other statement.
    /// Words inside strings, quoted names and comments do not count.
    private static func attachKeyOffset(_ sql: String) -> String.Index? {
        var index = sql.startIndex
        var first = true
        while index < sql.endIndex {
            let character = sql[index]
            if character == "'" || character == "\"" || character == "`" || character == "[" {
                let close: Character = character == "[" ? "]" : character
                index = sql[sql.index(after: index)...].firstIndex(of: close).map { sql.index(after: $0) } ?? sql.endIndex
            } else if sql[index...].hasPrefix("--") {
                index = sql[index...].firstIndex(of: "\n") ?? sql.endIndex
            } else if sql[index...].hasPrefix("/*") {
                index = sql[index...].firstRange(of: "*/")?.upperBound ?? sql.endIndex
            } else if character.isLetter || character == "_" {
                let end = sql[index...].firstIndex { !($0.isLetter || $0.isNumber || $0 == "_") } ?? sql.endIndex
                let word = sql[index..<end].uppercased()
                if first, word != "ATTACH" { return nil }
                if !first, word == "KEY" { return index }
                first = false
                index = end
            } else {
                index = sql.index(after: index)
            }
        }
        return nil
    }
}
