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
    /// Encrypted but for bytes 16 to 23 of the header (page size, versions, reserved bytes,
    /// payload fractions 64, 32, 32), which SQLite3 Multiple Ciphers' schemes leave plain
    /// (ChaCha20, Ascon-128, wxSQLite3's AES, its SQLCipher scheme without legacy mode).
    /// SQLCipher cannot read them (`DatabaseFile.familyDescription` names the scheme).
    /// See https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_legacy/
    case sqlite3MultipleCiphers = "sqlite3mc"
    /// Anything else: an encrypted database, or random bytes no key can tell from one.
    case opaque
}
