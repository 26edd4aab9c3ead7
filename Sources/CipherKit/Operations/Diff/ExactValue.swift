import CSQLCipher

/// A value as SQLite stored it, compared bit for bit: a real by its bits (so `-0.0` is not
/// `0.0`), text by its bytes (so text that is not UTF-8, or the same letters composed
/// another way, is not equal to the text Swift would decode it to). `DatabaseValue`'s
/// equality is Swift's, which is neither.
struct ExactValue: Equatable {
    enum Storage: Equatable {
        case null
        case integer(Int64)
        case real(bits: UInt64)
        case text([UInt8])
        case blob([UInt8])
    }

    let storage: Storage

    /// Column `index` of `statement`'s current row.
    init(column index: Int, of statement: Statement) {
        switch statement.columnType(at: index) {
        case SQLITE_INTEGER: storage = .integer(statement.int64(at: index))
        case SQLITE_FLOAT: storage = .real(bits: statement.double(at: index).bitPattern)
        case SQLITE_TEXT: storage = .text(statement.withText(at: index) { Array($0) })
        case SQLITE_BLOB: storage = .blob(statement.withBlob(at: index) { Array($0) })
        default: storage = .null
        }
    }

    init(_ value: DatabaseValue) {
        switch value {
        case .null: storage = .null
        case .integer(let x): storage = .integer(x)
        case .real(let x): storage = .real(bits: x.bitPattern)
        case .text(let x): storage = .text(Array(x.utf8))
        case .blob(let x): storage = .blob(x)
        }
    }

    /// The value for a report (text that is not UTF-8 shows with replacement characters).
    var databaseValue: DatabaseValue {
        switch storage {
        case .null: return .null
        case .integer(let x): return .integer(x)
        case .real(let bits): return .real(Double(bitPattern: bits))
        case .text(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
        case .blob(let bytes): return .blob(bytes)
        }
    }
}
