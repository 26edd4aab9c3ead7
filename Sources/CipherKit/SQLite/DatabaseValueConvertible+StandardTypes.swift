import FoundationEssentials

// The conversions of the Swift types SQLite values map to. Integers and reals convert to
// each other only when no information is lost; text never silently becomes a number.

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Int64 {
        switch value {
        case .integer(let integer):
            return integer
        case .real(let real) where real.rounded() == real && real >= -9.223372036854775808e18 && real < 9.223372036854775808e18:
            return Int64(real)
        default:
            throw ValueConversionError(type: "Int64", value: value)
        }
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Int {
        guard let integer = try? Int64.fromDatabaseValue(value), let result = Int(exactly: integer) else {
            throw ValueConversionError(type: "Int", value: value)
        }
        return result
    }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Double {
        switch value {
        case .real(let real): return real
        case .integer(let integer): return Double(integer)
        default: throw ValueConversionError(type: "Double", value: value)
        }
    }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }

    /// 0 is false and 1 is true; anything else does not fit.
    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Bool {
        switch value {
        case .integer(0): return false
        case .integer(1): return true
        default: throw ValueConversionError(type: "Bool", value: value)
        }
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> String {
        guard case .text(let text) = value else { throw ValueConversionError(type: "String", value: value) }
        return text
    }
}

extension Array: DatabaseValueConvertible where Element == UInt8 {
    public var databaseValue: DatabaseValue { .blob(self) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> [UInt8] {
        guard case .blob(let bytes) = value else { throw ValueConversionError(type: "[UInt8]", value: value) }
        return bytes
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob([UInt8](self)) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Data {
        guard case .blob(let bytes) = value else { throw ValueConversionError(type: "Data", value: value) }
        return Data(bytes)
    }
}

extension Date: DatabaseValueConvertible {
    /// ISO-8601 text in UTC with milliseconds: `2026-11-22T03:10:29.123Z`.
    public var databaseValue: DatabaseValue {
        .text(Date.iso8601(fractional: true).format(self))
    }

    /// Reads ISO-8601 text, with or without fractional seconds.
    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Date {
        guard case .text(let text) = value,
              let date = (try? Date.iso8601(fractional: true).parse(text)) ?? (try? Date.iso8601(fractional: false).parse(text)) else {
            throw ValueConversionError(type: "Date", value: value)
        }
        return date
    }

    private static func iso8601(fractional: Bool) -> Date.ISO8601FormatStyle {
        Date.ISO8601FormatStyle(includingFractionalSeconds: fractional)
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Wrapped? {
        value.isNull ? nil : try Wrapped.fromDatabaseValue(value)
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> DatabaseValue { value }
}
