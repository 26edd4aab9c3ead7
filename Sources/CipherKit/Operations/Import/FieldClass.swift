import CSQLCipher
import Glibc

/// What a csv or tsv field holds, as the column types of a new table see it: an integer or a
/// real only when the field is written exactly as SQLite writes that number (`-12`; `2.5`,
/// `10.0`, `1.0e+20`, or the 17 digits a real needs to read back), so that storing it as a
/// number and writing it out again gives the same text. Anything else that SQLite's
/// affinity would turn into a number (`007`, `+1`, ` 12 `, `1e5`, `2.50`, `-0.0`) is text.
/// Every field after a new table's first batch is classed again, so this reads the bytes in
/// place.
enum FieldClass: Equatable {
    case empty
    case integer
    case real
    case text

    init(_ field: ArraySlice<UInt8>) {
        if field.isEmpty {
            self = .empty
        } else if Self.isCanonicalInteger(field) {
            self = .integer
        } else if field.withUnsafeBytes(Self.isCanonicalReal) {
            self = .real
        } else {
            self = .text
        }
    }

    private static let int64Limits = (positive: Array("9223372036854775807".utf8), negative: Array("9223372036854775808".utf8))

    /// `-?(0|[1-9][0-9]*)` within 64 bits, and not `-0`.
    static func isCanonicalInteger(_ field: ArraySlice<UInt8>) -> Bool {
        let negative = field.first == UInt8(ascii: "-")
        let digits = negative ? field.dropFirst() : field
        guard let first = digits.first, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        if first == 0x30 { return digits.count == 1 && !negative }
        guard digits.count >= 19 else { return true }
        guard digits.count == 19 else { return false }
        let limit = negative ? int64Limits.negative : int64Limits.positive
        return !digits.lexicographicallyPrecedes(limit) ? digits.elementsEqual(limit) : true
    }

    /// A finite real, not -0.0 (which a REAL column stores as 0.0), whose shortest SQLite
    /// form (`TextRendering`'s round-trip form) is the field itself. Decided from the text
    /// alone (`writtenForm`) where it can be, since a new table checks every later field
    /// of a REAL column; by strtod and SQLite's own rendering (`renderedForm`) otherwise.
    static func isCanonicalReal(_ field: UnsafeRawBufferPointer) -> Bool {
        isWrittenReal(field, roundTrip: true)
    }

    /// `isCanonicalReal`, or without `roundTrip` the form of SQLite's 15 digits alone (what a
    /// TEXT column stores for a real, so that 17-digit reals are not taken).
    static func isWrittenReal(_ field: UnsafeRawBufferPointer, roundTrip: Bool) -> Bool {
        // SQLite always writes a real with a point; this also keeps strtod from words such
        // as "inf" or "nan", and from hexadecimal.
        guard field.count <= 32, field.contains(UInt8(ascii: ".")),
              field.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") })
        else { return false }
        return writtenForm(field) ?? renderedForm(field, roundTrip: roundTrip)
    }

    /// The field read as a decimal and written again as SQLite's `%!.15g` writes it, compared
    /// with itself: for up to 15 significant digits within the normal range, that number's
    /// double is written back with the same digits, so no conversion is needed. nil for
    /// more digits, an exponent near the ends of the range, or text that is not a decimal.
    static func writtenForm(_ field: UnsafeRawBufferPointer) -> Bool? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 80) { buffer -> Bool? in
            let digits = buffer.baseAddress!, written = digits + 40
            var index = 0, count = 0, pointAt = -1, first = -1, last = -1, exponent = 0
            let negative = field.first == UInt8(ascii: "-")
            if negative { index = 1 }
            while index < field.count, field[index] != UInt8(ascii: "e") {
                let byte = field[index]
                if byte == UInt8(ascii: ".") {
                    guard pointAt < 0 else { return nil }
                    pointAt = count
                } else {
                    guard byte >= 0x30, byte <= 0x39 else { return nil }
                    if byte != 0x30 { if first < 0 { first = count }; last = count }
                    digits[min(count, 39)] = byte
                    count += 1
                }
                index += 1
            }
            guard count > 0, pointAt > 0, pointAt < count else { return nil }
            if index < field.count {
                guard let value = Self.exponent(field, from: index + 1) else { return nil }
                exponent = value
            }
            // Zero is written 0.0 (and -0.0 is no REAL).
            guard first >= 0 else { return !negative && field.count == 3 && field[0] == 0x30 && field[2] == 0x30 }
            let significant = last - first + 1, decimal = pointAt - first - 1 + exponent
            guard significant <= 15, count <= 40, abs(decimal) <= 300 else { return nil }
            var length = 0
            func put(_ byte: UInt8) { written[length] = byte; length += 1 }
            if negative { put(UInt8(ascii: "-")) }
            let digit = { (position: Int) -> UInt8 in position < significant ? digits[first + position] : 0x30 }
            if decimal < -4 || decimal >= 15 {
                put(digit(0)); put(UInt8(ascii: "."))
                if significant == 1 { put(0x30) } else { for position in 1..<significant { put(digit(position)) } }
                put(UInt8(ascii: "e")); put(decimal < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                let magnitude = abs(decimal)
                if magnitude >= 100 { put(0x30 + UInt8(magnitude / 100)) }
                put(0x30 + UInt8(magnitude / 10 % 10)); put(0x30 + UInt8(magnitude % 10))
            } else if decimal >= 0 {
                for position in 0...decimal { put(digit(position)) }
                put(UInt8(ascii: "."))
                if significant <= decimal + 1 { put(0x30) } else { for position in (decimal + 1)..<significant { put(digit(position)) } }
            } else {
                put(0x30); put(UInt8(ascii: "."))
                for _ in 0..<(-decimal - 1) { put(0x30) }
                for position in 0..<significant { put(digit(position)) }
            }
            return length == field.count && memcmp(written, field.baseAddress!, length) == 0
        }
    }

    /// An exponent's value (a sign, then digits); nil when it is not one or is huge.
    private static func exponent(_ field: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start, negative = false
        if index < field.count, field[index] == UInt8(ascii: "+") || field[index] == UInt8(ascii: "-") {
            negative = field[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < field.count, field.count - index <= 4 else { return nil }
        var value = 0
        while index < field.count {
            guard field[index] >= 0x30, field[index] <= 0x39 else { return nil }
            value = value * 10 + Int(field[index] - 0x30)
            index += 1
        }
        return negative ? -value : value
    }

    /// The field through strtod and back through SQLite's rendering, compared with itself.
    static func renderedForm(_ field: UnsafeRawBufferPointer) -> Bool {
        renderedForm(field, roundTrip: true)
    }

    private static func renderedForm(_ field: UnsafeRawBufferPointer, roundTrip: Bool) -> Bool {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 80) { buffer in
            let text = buffer.baseAddress!, written = text + 40
            UnsafeMutableRawPointer(text).copyMemory(from: field.baseAddress!, byteCount: field.count)
            text[field.count] = 0
            let value = strtod(text, nil)
            guard value.isFinite, !(value == 0 && value.sign == .minus) else { return false }
            return Int(csqlcipher_format_real(value, roundTrip ? 1 : 0, written, 40)) == field.count && memcmp(text, written, field.count) == 0
        }
    }
}
