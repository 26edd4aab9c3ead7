import FoundationEssentials

/// Decodes a `Row` into a `Decodable` type: each coding key names a column, and each
/// value goes through `DatabaseValueConvertible`, so the same rules (and errors) apply.
/// Only flat types decode; a nested container is `RowDecodingError.unsupported`.
struct RowDecoder: Decoder {
    let row: Row
    var codingPath: [CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns<Key>(row: row))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        throw RowDecodingError.unsupported("an array")
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        throw RowDecodingError.unsupported("a single value; decode a column with get(_:)")
    }

    /// The row's columns as a keyed container.
    private struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: Row
        var codingPath: [CodingKey] = []
        var allKeys: [Key] { row.columns.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { row.index(of: key.stringValue) != nil }

        func decodeNil(forKey key: Key) throws -> Bool {
            guard let value = row[key.stringValue] else { throw RowDecodingError.noSuchColumn(key.stringValue) }
            return value.isNull
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try row.get(key.stringValue) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try row.get(key.stringValue) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try row.get(key.stringValue) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try row.get(key.stringValue, as: Double.self)) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try row.get(key.stringValue) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try row.get(key.stringValue) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try narrow(key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try narrow(key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try narrow(key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try narrow(key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try narrow(key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try narrow(key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try narrow(key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try narrow(key) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if let convertible = type as? DatabaseValueConvertible.Type {
                guard let index = row.index(of: key.stringValue) else { throw RowDecodingError.noSuchColumn(key.stringValue) }
                do {
                    // Cannot fail: `convertible` is `T` itself, cast to the protocol above.
                    return try convertible.fromDatabaseValue(row[index]) as! T
                } catch var error as ValueConversionError {
                    error.column = row.columns[index]
                    throw error
                }
            }
            throw RowDecodingError.unsupported("\(type) in column '\(key.stringValue)'")
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw RowDecodingError.unsupported("a nested object")
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
            throw RowDecodingError.unsupported("an array")
        }

        func superDecoder() throws -> Decoder { RowDecoder(row: row) }
        func superDecoder(forKey key: Key) throws -> Decoder { RowDecoder(row: row) }

        /// A fixed-width integer, through Int64, refused when it does not fit.
        private func narrow<T: FixedWidthInteger>(_ key: Key) throws -> T {
            let wide: Int64 = try row.get(key.stringValue)
            guard let value = T(exactly: wide) else {
                throw ValueConversionError(type: "\(T.self)", value: .integer(wide), column: key.stringValue)
            }
            return value
        }
    }
}
