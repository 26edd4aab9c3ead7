/// Hex encoding and decoding for salts and raw keys.
public enum Hex {
    /// Whether `byte` is an ASCII hex digit.
    public static func isDigit(_ byte: UInt8) -> Bool {
        value(of: byte) != nil
    }

    /// Lowercase hex of `bytes`.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(decoding: encodeBytes(bytes), as: UTF8.self)
    }

    /// Lowercase hex digits of `bytes` as bytes, for secrets that must not become a `String`.
    public static func encodeBytes<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return out
    }

    /// The bytes that hex digits spell, or nil when they are not an even number of hex digits.
    public static func decode<C: Collection>(_ digits: C) -> [UInt8]? where C.Element == UInt8 {
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var high: UInt8?
        for digit in digits {
            guard let nibble = value(of: digit) else { return nil }
            if let pending = high {
                out.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return out
    }

    /// The bytes that a hex string spells, or nil.
    public static func decode(_ text: String) -> [UInt8]? {
        decode(Array(text.utf8))
    }

    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
