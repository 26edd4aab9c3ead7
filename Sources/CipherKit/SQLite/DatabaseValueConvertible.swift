/// A Swift type that converts to and from a `DatabaseValue`: the one bridge between
/// Swift values and what SQLite stores.
///
/// CipherKit conforms `Int`, `Int64`, `Double`, `Bool`, `String`, `Data`, `[UInt8]`, `Date`
/// (ISO-8601 text) and `Optional` (NULL) to it.
public protocol DatabaseValueConvertible {
    /// The value as SQLite stores it.
    var databaseValue: DatabaseValue { get }

    /// Decodes a stored value.
    ///
    /// - Throws: `ValueConversionError` when the value does not fit the type.
    static func fromDatabaseValue(_ value: DatabaseValue) throws -> Self
}
