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
    /// Neither SQLite nor SQLCipher wrote this: text, a size that is not a whole number of
    /// pages, or a SQLite header that is damaged (`DatabaseFile.foreignReason` says which).
    case notADatabase = "not-a-database"
    /// Anything else: an encrypted database, or random bytes no key can tell from one.
    case opaque
}
