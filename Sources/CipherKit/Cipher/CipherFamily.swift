/// The family of encrypted SQLite file a copy is read from or written as: SQLCipher's, or one
/// of SQLite3 Multiple Ciphers' schemes: ChaCha20 (sqleet's format), wxSQLite3's AES-128-CBC
/// and AES-256-CBC, System.Data.SQLite's RC4, and its own SQLCipher scheme outside legacy
/// mode (bytes 16 to 23 plain); and SQLCipher 1 to 3 files under a `PRAGMA cipher` other than
/// AES-256-CBC (`LegacyCipherScheme`). All but the first two are read only.
/// See https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_overview/
public enum CipherFamily: String, CaseIterable, Sendable {
    case sqlcipher
    case chacha20
    case aes128cbc
    case aes256cbc
    case rc4
    case sqlite3mcSQLCipher = "sqlite3mc-sqlcipher"
    case sqlcipherOtherCipher = "sqlcipher-other-cipher"

    /// The families a copy can be written as.
    public static let writable: [CipherFamily] = [.sqlcipher, .chacha20]

    /// Whether the family's files can be keyed with a raw key.
    public var takesRawKey: Bool { ![.aes128cbc, .aes256cbc, .rc4, .sqlcipherOtherCipher].contains(self) }
}
