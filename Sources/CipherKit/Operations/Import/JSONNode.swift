import Foundation

/// A JSON value as an import reads it: `true`/`false` as 1/0, a number that is a 64-bit
/// integer as an integer and any other as a real, a string as text, null as NULL, and an
/// array or object kept as its JSON text.
enum JSONNode: Decodable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case nested(String)

    init(from decoder: Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() { self = .null; return }
            if let value = try? container.decode(Bool.self) { self = .integer(value ? 1 : 0); return }
            if let value = try? container.decode(Int64.self) { self = .integer(value); return }
            if let value = try? container.decode(Double.self) { self = .real(value); return }
            if let value = try? container.decode(String.self) { self = .text(value); return }
        }
        let value = try AnyJSON(from: decoder)
        self = .nested(value.text)
    }

    var value: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .text(let value), .nested(let value): return .text(value)
        }
    }
}

/// Any JSON value, written back as compact JSON text (object keys sorted).
private struct AnyJSON: Decodable {
    let text: String

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            let members = try object.allKeys.sorted { $0.stringValue < $1.stringValue }.map { key in
                Self.quoted(key.stringValue) + ":" + (try object.decode(AnyJSON.self, forKey: key)).text
            }
            text = "{" + members.joined(separator: ",") + "}"
        } else if var array = try? decoder.unkeyedContainer() {
            var items: [String] = []
            while !array.isAtEnd { items.append(try array.decode(AnyJSON.self).text) }
            text = "[" + items.joined(separator: ",") + "]"
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { text = "null" }
            else if let value = try? container.decode(Bool.self) { text = value ? "true" : "false" }
            else if let value = try? container.decode(Int64.self) { text = String(value) }
            else if let value = try? container.decode(Double.self) { text = String(value) }
            else { text = Self.quoted(try container.decode(String.self)) }
        }
    }

    private static func quoted(_ string: String) -> String {
        let data = (try? JSONEncoder().encode(string)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
