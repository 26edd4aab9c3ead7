import CSQLCipher
import FoundationEssentials

/// Small facts about SQL text that need no parser.
enum SQLText {
    /// Whether `sql` holds nothing but whitespace, semicolons and comments (`-- …` to the
    /// line end, `/* … */`), so no statement follows.
    static func isBlank(_ sql: String) -> Bool {
        var index = sql.utf8.startIndex
        let bytes = sql.utf8
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x3B:
                index = bytes.index(after: index)
            case 0x2D where bytes.index(after: index) < bytes.endIndex && bytes[bytes.index(after: index)] == 0x2D:
                while index < bytes.endIndex, bytes[index] != 0x0A { index = bytes.index(after: index) }
            case 0x2F where bytes.index(after: index) < bytes.endIndex && bytes[bytes.index(after: index)] == 0x2A:
                index = bytes.index(index, offsetBy: 2)
                while index < bytes.endIndex {
                    if bytes[index] == 0x2A, bytes.index(after: index) < bytes.endIndex, bytes[bytes.index(after: index)] == 0x2F {
                        index = bytes.index(index, offsetBy: 2)
                        break
                    }
                    index = bytes.index(after: index)
                }
            default:
                return false
            }
        }
        return true
    }

    /// The statement's first non-blank line, shortened to 60 characters, for messages.
    static func firstLine(_ sql: String) -> String {
        let line = sql.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
            .first { !$0.isEmpty && !$0.hasPrefix("--") } ?? sql.trimmingWhitespaceAndNewlines()
        return line.count > 60 ? String(line.prefix(60)) + "…" : line
    }

    /// The statements of `sql`, each ending where SQLite's `sqlite3_complete` says one is
    /// whole (a `;` outside strings, comments and trigger bodies); blank ones left out.
    /// See https://www.sqlite.org/c3ref/complete.html
    static func statements(_ sql: String) -> [String] {
        var result: [String] = []
        var current = ""
        // Scalar by scalar: a ';' followed by a combining mark is one Swift character, and
        // still ends a statement to SQLite.
        for scalar in sql.unicodeScalars {
            current.unicodeScalars.append(scalar)
            if scalar == ";", sqlite3_complete(current) != 0 {
                if !isBlank(current) { result.append(current) }
                current = ""
            }
        }
        if !isBlank(current) { result.append(current) }
        return result
    }

    /// The first `limit` tokens of `sql`: words upper-cased (a quoted name without its
    /// quotes), and any other character on its own; blanks and comments skipped.
    static func leadingTokens(_ sql: String, limit: Int) -> [String] {
        var tokens: [String] = []
        var rest = Substring(sql)
        while tokens.count < limit {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*") {
                rest = rest.firstRange(of: "*/").map { rest[$0.upperBound...] } ?? ""
            } else if let first = rest.first, first == "\"" || first == "`" || first == "[" {
                let close: Character = first == "[" ? "]" : first
                let name = rest.dropFirst().prefix { $0 != close }
                tokens.append(name.uppercased())
                rest = rest.dropFirst(name.count + 2)
            } else if let first = rest.first {
                let word = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                tokens.append(word.isEmpty ? String(first) : word.uppercased())
                rest = rest.dropFirst(max(1, word.count))
            } else {
                break
            }
        }
        return tokens
    }
}
