import FoundationEssentials

extension DatabaseValue {
    /// Parses a value given on a command line: `int:42`, `real:1.5`, `text:007`,
    /// `blob:DEADBEEF` (hex) or `null`; an untyped value is an integer, else a real, when
    /// that number is written back as the same text (so `007`, `1.50`, `+3` or an integer
    /// past 64 bits lose no digit), else text.
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
                guard let value = Double(body) else {
                    throw QueryError.invalidValue(text: text, reason: "not a number")
                }
                self = .real(value)
                return
            case "text":
                self = .text(body)
                return
            case "blob":
                guard let bytes = Hex.decode(body) else { throw QueryError.invalidValue(text: text, reason: "not an even number of hex digits") }
                self = .blob(bytes)
                return
            default:
                break
            }
        }
        if let integer = Int64(text), String(integer) == text {
            self = .integer(integer)
        } else if !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }), let real = Double(text), real.isFinite,
                  "\(real)" == text {
            self = .real(real)
        } else {
            self = .text(text)
        }
    }
}
