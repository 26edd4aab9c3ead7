import CSQLCipher

/// SQL literals that read back as exactly the value they were written from, for a dump.
///
/// Integers in decimal; reals with a decimal point or exponent, in as few digits as SQLite
/// reads back exactly (`1e999` for infinity, `-0.0` for negative zero); text quoted with `'`
/// doubled, a CR as `char(13)` through `replace()`, or, when it holds a NUL or bytes that
/// are not UTF-8, `CAST(X'…' AS TEXT)` with its bytes; blobs as `X'…'`.
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
        // SQLite's printf drops the sign of a zero; the minus of `-0.0` negates the double.
        if value == 0, value.sign == .minus {
            bytes.append(contentsOf: Array("-0.0".utf8))
            return
        }
        TextRendering.appendFormatted(to: &bytes) { csqlcipher_format_real_literal(value, reader.rawHandle, $0, $1) }
    }

    static func append<Text: Collection>(text: Text, to bytes: inout [UInt8]) where Text.Element == UInt8 {
        // Decoding replaces bytes that are not UTF-8, so a changed round trip shows them.
        guard !text.contains(0), Array(String(decoding: text, as: UTF8.self).utf8).elementsEqual(text) else {
            return appendCast(text, to: &bytes)
        }
        guard text.contains(carriageReturn) else { return appendQuoted(text, to: &bytes) }
        // The sqlite3 shell reads its input by lines and drops a CR before a line break, so a
        // CR is never written raw: it stands as the two characters \r, which replace() turns
        // back into char(13) (when the text holds no \r of its own, else the bytes in hex).
        guard !holdsEscape(text) else { return appendCast(text, to: &bytes) }
        bytes.append(contentsOf: Array("replace(".utf8))
        appendQuoted(text.flatMap { $0 == carriageReturn ? escape : [$0] }, to: &bytes)
        bytes.append(contentsOf: Array(",'\\r',char(13))".utf8))
    }

    private static let carriageReturn: UInt8 = 13
    private static let escape: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "r")]

    /// `CAST(X'…' AS TEXT)`: the text's bytes as they are, in a UTF-8 database.
    private static func appendCast<Text: Collection>(_ text: Text, to bytes: inout [UInt8]) where Text.Element == UInt8 {
        bytes.append(contentsOf: Array("CAST(".utf8))
        appendHex(text, to: &bytes)
        bytes.append(contentsOf: Array(" AS TEXT)".utf8))
    }

    private static func appendQuoted<Text: Collection>(_ text: Text, to bytes: inout [UInt8]) where Text.Element == UInt8 {
        bytes.append(0x27)
        for byte in text {
            if byte == 0x27 { bytes.append(0x27) }
            bytes.append(byte)
        }
        bytes.append(0x27)
    }

    private static func holdsEscape<Text: Collection>(_ text: Text) -> Bool where Text.Element == UInt8 {
        zip(text, text.dropFirst()).contains { $0 == escape[0] && $1 == escape[1] }
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
