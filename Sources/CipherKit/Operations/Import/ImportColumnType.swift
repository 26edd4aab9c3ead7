/// The type import gives a column of a table it creates, from the first batch of rows, so
/// that every value is kept as it was read: INTEGER, REAL or TEXT when every value of the
/// batch (NULL and empty fields aside) is of that class, and no type otherwise (a mix, blobs,
/// nothing but NULL), which keeps each value as it is bound. A csv or tsv field is an integer
/// or a real only when written as SQLite writes one (`FieldClass`), so an INTEGER or REAL
/// column gives back the same text; `007`, `1e5` or ` 12 ` stay text. A JSON `-0.0` leaves
/// the column untyped, since a REAL column stores it as `0.0`. Values after the first batch
/// must fit the type chosen (`admits`).
/// See https://www.sqlite.org/datatype3.html#type_affinity
enum ImportColumnType: Equatable {
    case integer
    case real
    case text
    case none

    /// The declared type, or nil for none.
    var declaration: String? {
        switch self {
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        case .none: return nil
        }
    }

    /// The type of column `column` of `rows` (each in column order).
    static func of(_ rows: [ImportRow], column: Int) -> ImportColumnType {
        var found: ImportColumnType?
        for row in rows {
            guard let type = valueType(row, column: column) else { continue }
            if found == nil { found = type } else if found != type { return .none }
        }
        return found ?? ImportColumnType.none
    }

    /// Whether value `column` of `row` keeps what it is in a column of this type; a type
    /// chosen from the first batch must admit every later value.
    func admits(_ row: ImportRow, column: Int) -> Bool {
        guard row.isDelimited else { return Self.valueType(row, column: column).map { $0 == self } ?? true }
        // Each field is looked at only for the one form its column takes: every later field of
        // a new table passes here. Every csv field is text, and a TEXT column keeps text.
        let field = row.field(column)
        switch self {
        case .integer: return field.isEmpty || FieldClass.isCanonicalInteger(field)
        case .real: return field.isEmpty || field.withUnsafeBytes(FieldClass.isCanonicalReal)
        case .text, .none: return true
        }
    }

    /// The type a value asks for; nil for NULL or an empty field, which any type keeps.
    private static func valueType(_ row: ImportRow, column: Int) -> ImportColumnType? {
        if row.isDelimited {
            switch FieldClass(row.field(column)) {
            case .empty: return nil
            case .integer: return .integer
            case .real: return .real
            case .text: return .text
            }
        }
        switch row.values[column] {
        case .null: return nil
        case .integer: return .integer
        case .real(let value): return value == 0 && value.sign == .minus ? ImportColumnType.none : .real
        case .text: return .text
        case .blob: return ImportColumnType.none
        }
    }
}
