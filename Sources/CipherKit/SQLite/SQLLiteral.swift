import CSQLCipher

/// SQL literals that read back as exactly the value they were written from, for a dump.
///
/// Integers in decimal; reals with a decimal point or exponent, in as few digits as SQLite
/// reads back exactly (`1e999` for infinity); text quoted with `'` doubled, or, when it holds
/// a NUL or bytes that are not UTF-8, `CAST(X'…' AS TEXT)` with its bytes; blobs as `X'…'`.
/// See https://www.sqlite.org/lang_expr.html#literal_values_constants_
enum SQLLiteral {
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// The statement `append(real:readBackBy:to:)` checks its literals with, on any connection.
    static func realReader(on connection: Connection) throws -> Statement {
        try connection.prepare("SELECT CAST(?1 AS REAL)")
    }

    /// Appends the value in column `index` of `statement`'s current row; `reader` is from
    /// `realReader(on:)`.
    static func append(column index: Int, of statement: Statement, readBackBy reader: Statement, to bytes: inout [UInt8]) {
        switch statement.columnType(at: index) {
        case SQLITE_INTEGER:
            TextRendering.append(integer: statement.int64(at: index), to: &bytes)
        case SQLITE_FLOAT:
            append(real: statement.double(at: index), readBackBy: reader, to: &bytes)
        case SQLITE_TEXT:
            statement.withText(at: index) { append(text: $0, to: &bytes) }
        case SQLITE_BLOB:
            statement.withBlob(at: index) { appendHex($0, to: &bytes) }
        default:
            bytes.append(contentsOf: Array("NULL".utf8))
        }
    }

    /// Appends `value` in the fewest digits that `reader` (from `realReader(on:)`) reads back
    /// as the same double: SQLite's own reading, not a correctly rounded one, is what counts.
    static func append(real value: Double, readBackBy reader: Statement, to bytes: inout [UInt8]) {
        guard value.isFinite else {
            bytes.append(contentsOf: Array((value < 0 ? "-1e999" : "1e999").utf8))
            return
        }
        TextRendering.appendFormatted(to: &bytes) { csqlcipher_format_real_literal(value, reader.rawHandle, $0, $1) }
    }

    static func append<Text: Collection>(text: Text, to bytes: inout [UInt8]) where Text.Element == UInt8 {
        // Decoding replaces bytes that are not UTF-8, so a changed round trip shows them.
        guard !text.contains(0), Array(String(decoding: text, as: UTF8.self).utf8).elementsEqual(text) else {
            bytes.append(contentsOf: Array("CAST(".utf8))
            appendHex(text, to: &bytes)
            bytes.append(contentsOf: Array(" AS TEXT)".utf8))
            return
        }
        bytes.append(0x27)
        for byte in text {
            if byte == 0x27 { bytes.append(0x27) }
            bytes.append(byte)
        }
        bytes.append(0x27)
    }

    static func appendHex<Bytes: Collection>(_ blob: Bytes, to bytes: inout [UInt8]) where Bytes.Element == UInt8 {
        bytes.append(UInt8(ascii: "X"))
        bytes.append(0x27)
        for byte in blob {
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0x0F)])
        }
        bytes.append(0x27)
    }
}
