/// Whether bytes are well-formed UTF-8 (RFC 3629 §4: no overlong forms, no surrogates, nothing
/// past U+10FFFF): JSON text must be, and text that is not goes into JSON tagged (`JSONTag`).
/// See https://www.rfc-editor.org/rfc/rfc3629#section-4
enum UTF8Validation {
    static func isValid<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let lead = bytes[index]
            bytes.formIndex(after: &index)
            if lead < 0x80 { continue }
            let (count, low, high): (Int, UInt8, UInt8)
            switch lead {
            case 0xC2...0xDF: (count, low, high) = (1, 0x80, 0xBF)
            case 0xE0: (count, low, high) = (2, 0xA0, 0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (count, low, high) = (2, 0x80, 0xBF)
            case 0xED: (count, low, high) = (2, 0x80, 0x9F)
            case 0xF0: (count, low, high) = (3, 0x90, 0xBF)
            case 0xF1...0xF3: (count, low, high) = (3, 0x80, 0xBF)
            case 0xF4: (count, low, high) = (3, 0x80, 0x8F)
            default: return false
            }
            // The first continuation byte has the lead's own range; the rest any continuation.
            for position in 0..<count {
                guard index < bytes.endIndex else { return false }
                let byte = bytes[index]
                let (min, max) = position == 0 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
                guard byte >= min, byte <= max else { return false }
                bytes.formIndex(after: &index)
            }
        }
        return true
    }
}
