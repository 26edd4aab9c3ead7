/// How a blob is written in text output.
public enum BlobEncoding: String, CaseIterable, Sendable {
    /// The bytes as they are (what the sqlite3 shell prints in csv mode).
    case raw
    /// Lowercase hexadecimal digits.
    case hex
    /// Base64 (RFC 4648, with padding).
    case base64
}
