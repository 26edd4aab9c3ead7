import FoundationEssentials

/// How JSON output writes a value that a JSON string or number cannot carry, so that import
/// reads it back as it was: a blob is `{"$base64":true,"encoded":"<base64>"}` (the form
/// sqlite-utils writes and reads), and text that is not UTF-8 is the same object with
/// `"type":"text"` added. Query output never writes any other object as a value, so an
/// object whose `$base64` is true is always one of these. Query output writes them in C
/// (`json_tag` in `Sources/CRowFormat/RowText.c`); import reads them (`JSONTag+Reading`).
/// See https://sqlite-utils.datasette.io/en/stable/cli.html#running-queries-and-returning-json
public enum JSONTag {
    static let marker = "$base64"
    static let encoded = "encoded"
    static let type = "type"

    /// A blob as its tagged object, for JSON that Swift writes (diff's rows).
    public static func blob(_ bytes: [UInt8]) -> JSONValue {
        .object([(marker, .bool(true)), (encoded, .string(Data(bytes).base64EncodedString()))])
    }
}
