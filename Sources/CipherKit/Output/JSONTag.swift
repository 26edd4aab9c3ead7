/// How JSON output writes a value that a JSON string or number cannot carry, so that import
/// reads it back as it was: a blob is `{"$base64":true,"encoded":"<base64>"}` (the form
/// sqlite-utils writes and reads), and text that is not UTF-8 is the same object with
/// `"type":"text"` added. Query output never writes any other object as a value, so an
/// object whose `$base64` is true is always one of these.
/// See https://sqlite-utils.datasette.io/en/stable/cli.html#running-queries-and-returning-json
enum JSONTag {
    static let marker = "$base64"
    static let encoded = "encoded"
    static let type = "type"

    /// A blob as its tagged object.
    static func append(blob: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        append(blob, type: nil, to: &bytes)
    }

    /// Text that is not UTF-8 as its tagged object.
    static func append(text: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        append(text, type: "text", to: &bytes)
    }

    private static func append(_ value: UnsafeRawBufferPointer, type: String?, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"$base64":true,"encoded":""#.utf8)
        TextRendering.append(blob: value, encoding: .base64, to: &bytes)
        bytes.append(0x22)
        if let type { bytes.append(contentsOf: #","type":"\#(type)""#.utf8) }
        bytes.append(UInt8(ascii: "}"))
    }
}
