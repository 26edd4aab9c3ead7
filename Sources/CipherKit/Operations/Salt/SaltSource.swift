/// Where a salt was read from.
public enum SaltSource: String, Sendable {
    /// The file's first 16 bytes, read without a key.
    case fileHeader = "file-header"
    /// `PRAGMA cipher_salt` on a connection the key opened.
    case pragma
}
