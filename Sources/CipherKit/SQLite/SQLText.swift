import Foundation

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
        let line = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && !$0.hasPrefix("--") } ?? sql.trimmingCharacters(in: .whitespacesAndNewlines)
        return line.count > 60 ? String(line.prefix(60)) + "…" : line
    }
}
