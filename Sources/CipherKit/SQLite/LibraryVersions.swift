import CSQLCipher

/// The versions of the libraries the process is linked to.
public struct LibraryVersions: Equatable, Sendable {
    /// SQLCipher's version, as `PRAGMA cipher_version` gives it (`4.6.1 community`).
    public let sqlcipher: String
    /// The SQLite version SQLCipher is built on.
    public let sqlite: String
    /// The crypto provider's name (`openssl`).
    public let cryptoProvider: String
    /// The crypto provider's version.
    public let cryptoProviderVersion: String
    /// Whether page encryption keeps its OpenSSL contexts between pages (the provider of
    /// `Sources/CCipherProvider`, installed with SQLCipher 4.6 and OpenSSL) rather than making them
    /// for every page as SQLCipher's own OpenSSL provider does.
    public let cachedCryptoContexts: Bool

    /// Reads the versions from an in-memory database.
    ///
    /// The provider is only known once a codec is attached, so the database gets a fixed raw
    /// key (no key derivation, and nothing of the user's); it holds no secret, so it is
    /// opened without turning SQLCipher's memory security on (`Connection(probe:)`).
    /// - Throws: `CipherKitError.codecUnavailable` when the codec is missing.
    public static func current() throws -> LibraryVersions {
        let connection = try Connection(probe: ())
        try connection.key(try KeyMaterial.rawKey(hex: Array(String(repeating: "0", count: 64).utf8)))
        return LibraryVersions(
            sqlcipher: try connection.pragmaText("cipher_version") ?? "unknown",
            sqlite: String(cString: sqlite3_libversion()),
            cryptoProvider: try connection.pragmaText("cipher_provider") ?? "unknown",
            cryptoProviderVersion: try connection.pragmaText("cipher_provider_version") ?? "unknown",
            cachedCryptoContexts: CodecGuard.shared.usesCachedProvider
        )
    }
}
