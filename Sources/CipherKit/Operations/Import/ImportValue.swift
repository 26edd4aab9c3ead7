/// A value of a JSON row as an import binds it. Text is bytes, not a `String`: it may hold a
/// NUL, and text that is not UTF-8 arrives tagged (`JSONTag`), so either must reach SQLite
/// exactly as it was written.
enum ImportValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text([UInt8])
    case blob([UInt8])

    /// The value a JSON member stands for: `true`/`false` as 1/0, an integer literal that
    /// fits 64 bits as an integer and any other number as a real, a string as its text, a
    /// tagged object (`JSONTag`) as its blob or text, and any other array or object as its
    /// compact JSON text.
    ///
    /// - Throws: `JSONTag.Malformed` for an object that is tagged but not as `JSONTag` says.
    init(_ tree: JSONTree) throws {
        switch tree {
        case .null: self = .null
        case .bool(let value): self = .integer(value ? 1 : 0)
        case .number(let literal): self = Self.number(literal)
        case .string(let bytes): self = .text(bytes)
        case .array: self = .text(tree.compact())
        case .object(let members):
            self = try JSONTag.value(of: members) ?? .text(tree.compact())
        }
    }

    /// A JSON number literal (already checked against the grammar): an integer when it has no
    /// fraction or exponent and fits 64 bits, else the nearest double.
    private static func number(_ literal: [UInt8]) -> ImportValue {
        let text = String(decoding: literal, as: UTF8.self)
        let isInteger = !literal.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        if isInteger, let value = Int64(text) { return .integer(value) }
        return .real(Double(text) ?? .nan)
    }

    /// The storage class SQLite gives the value when bound, as `typeof()` names it.
    var storageClass: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }
}
