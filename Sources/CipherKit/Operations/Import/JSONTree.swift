/// A JSON value as `JSONParser` reads it: numbers keep their literal (so an integer is never
/// taken for a real, nor a real rounded), strings their bytes (a NUL included), objects their
/// members in the order written.
indirect enum JSONTree: Equatable {
    case null
    case bool(Bool)
    case number([UInt8])
    case string([UInt8])
    case array([JSONTree])
    case object([JSONMember])

    /// The value as compact JSON text: no blanks, members in their order, numbers as written.
    func compact() -> [UInt8] {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return bytes
    }

    private func append(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let literal): bytes.append(contentsOf: literal)
        case .string(let text): JSONString.append(text, to: &bytes)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                item.append(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONString.append(Array(member.key.utf8), to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.append(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}

