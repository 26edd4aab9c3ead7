/// A JSON string literal from UTF-8 bytes: quotes and backslashes escaped, control characters
/// as `\n`, `\t`, `\r`, `\b`, `\f` or `\u00XX` (a NUL is `\u0000`), other bytes as they are.
/// The bytes must be UTF-8 (`UTF8Validation`); text that is not goes in a `JSONTag`.
/// See https://www.rfc-editor.org/rfc/rfc8259#section-7
enum JSONString {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func append<Bytes: Collection>(_ text: Bytes, to bytes: inout [UInt8]) where Bytes.Element == UInt8 {
        bytes.append(0x22)
        for byte in text {
            switch byte {
            case 0x22: bytes.append(0x5C); bytes.append(0x22)
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x0A: bytes.append(0x5C); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(0x5C); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(0x5C); bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(0x5C); bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(0x5C); bytes.append(UInt8(ascii: "f"))
            case 0..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }
}
