import FoundationEssentials

extension DatabaseValue {
    /// Parses a value given on a command line: `int:42`, `real:1.5`, `text:007`,
    /// `blob:DEADBEEF` (hex) or `null`; an untyped value is an integer, else a real, when
    /// SQLite writes that number back as the same text (`42`, `-1.5`, `1.0e+20`), so that a
    /// TEXT column stores what was given and a numeric one the same number; else text
    /// (`007`, `1.50`, `+3`, `1e3`, an integer past 64 bits, a real of more than 15 digits),
    /// which a numeric column's affinity still makes a number. The rule is import's for csv
    /// fields (`FieldClass`), at SQLite's 15 digits.
    ///
    /// - Throws: `QueryError.invalidValue` for a typed value that does not parse.
    public init(parsing text: String) throws {
        if text == "null" {
            self = .null
            return
        }
        if let colon = text.firstIndex(of: ":") {
            let type = text[..<colon]
            let body = String(text[text.index(after: colon)...])
            switch type {
            case "int":
                guard let value = Int64(body) else { throw QueryError.invalidValue(text: text, reason: "not a 64-bit integer") }
                self = .integer(value)
                return
            case "real":
                // SQLite stores a NaN as NULL.
                guard let value = Double(body), !value.isNaN else {
                    throw QueryError.invalidValue(text: text, reason: "not a number")
                }
                self = .real(value)
                return
            case "text":
                self = .text(body)
                return
            case "blob":
                guard let bytes = Hex.decode(body) else { throw QueryError.invalidValue(text: text, reason: "not hex digits, two for each byte") }
                self = .blob(bytes)
                return
            default:
                break
            }
        }
        if FieldClass.isCanonicalInteger(ArraySlice(text.utf8)), let integer = Int64(text) {
            self = .integer(integer)
        } else if let real = Self.writtenBackReal(text) {
            self = .real(real)
        } else {
            self = .text(text)
        }
    }

    /// The real `text` spells as SQLite's `%!.15g` writes it (with its point, as `2.0` or
    /// `1.0e+20`); nil for any other text.
    private static func writtenBackReal(_ text: String) -> Double? {
        guard Array(text.utf8).withUnsafeBytes({ FieldClass.isWrittenReal($0, roundTrip: false) }) else { return nil }
        return Double(text)
    }
}
