/// What a file looks like from its bytes, before any key is tried.
public enum DatabaseFileKind: String, Equatable, Sendable {
    /// No file at the path.
    case missing
    /// A directory or another non-regular file.
    case notRegularFile = "not-regular-file"
    /// A file with no bytes.
    case empty
    /// A file shorter than the smallest page (512 bytes).
    case tooShort = "too-short"
    /// A plaintext SQLite database: it opens without a key.
    case plaintext
    /// Begins with the SQLite magic but does not open without a key: a SQLCipher plaintext header.
    case plaintextHeader = "plaintext-header"
    /// Anything else: an encrypted database, or a file that is not a database at all.
    case opaque
}
