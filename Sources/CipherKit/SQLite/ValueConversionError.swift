/// A stored value that does not fit the Swift type asked for.
public struct ValueConversionError: CipherKitFailure, Equatable {
    /// The Swift type asked for: `Int`, `Date`, …
    public let type: String
    /// The value found.
    public let value: DatabaseValue
    /// The column, when the value came from a named column.
    public var column: String?

    public init(type: String, value: DatabaseValue, column: String? = nil) {
        self.type = type
        self.value = value
        self.column = column
    }

    /// `could not decode Int from database value 'abc'` (with `in column 'x'` when known).
    public var message: String {
        let shown: String
        switch value {
        case .null: shown = "NULL"
        case .integer(let integer): shown = String(integer)
        case .real(let real): shown = String(real)
        case .text(let text): shown = "'" + (text.count > 40 ? String(text.prefix(40)) + "…" : text) + "'"
        case .blob(let bytes): shown = "a \(bytes.count)-byte blob"
        }
        return "could not decode \(type) from database value \(shown)" + (column.map { " in column '\($0)'" } ?? "")
    }

    public var path: String? { nil }

    public var reason: FailureReason { .valueConversion }
}
