/// A JSON value whose objects keep their keys in the order given, so output is stable.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.rendered() == rhs.rendered()
    }

    /// An integer, or null when nil.
    public static func integer(_ value: Int?) -> JSONValue {
        value.map { .integer(Int64($0)) } ?? .null
    }

    /// A string, or null when nil.
    public static func string(_ value: String?) -> JSONValue {
        value.map { .string($0) } ?? .null
    }

    /// The compact JSON text, on one line.
    public func rendered() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null:
            out += "null"
        case .bool(let value):
            out += value ? "true" : "false"
        case .integer(let value):
            out += String(value)
        case .number(let value):
            if value.isFinite {
                // Swift's shortest round-trip form; whole reals keep their fraction (2.0).
                out += String(value)
            } else {
                out += "null"
            }
        case .string(let value):
            JSONValue.writeString(value, to: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                JSONValue.writeString(member.0, to: &out)
                out += ":"
                member.1.write(to: &out)
            }
            out += "}"
        }
    }

    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    static func writeString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
