/// The settings of SQLite3 Multiple Ciphers' ChaCha20 scheme: its KDF's iterations (PBKDF2-
/// HMAC-SHA256), legacy mode (sqleet's original: page 1 encrypted whole, so the page size
/// is not in the file) and the page size.
/// See https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_chacha20/
public struct ChaChaScheme: Equatable, Sendable {
    public var kdfIterations: Int
    public var legacy: Bool
    public var pageSize: Int

    public init(kdfIterations: Int, legacy: Bool, pageSize: Int) {
        self.kdfIterations = kdfIterations
        self.legacy = legacy
        self.pageSize = pageSize
    }

    /// SQLite3 Multiple Ciphers' defaults: bytes 16 to 23 of the header plain.
    public static let defaults = ChaChaScheme(kdfIterations: 64007, legacy: false, pageSize: 4096)
    /// sqleet's own settings (SQLite3 Multiple Ciphers' `legacy=1`).
    public static let sqleet = ChaChaScheme(kdfIterations: 12345, legacy: true, pageSize: 4096)

    /// Bytes of page 1 left unencrypted: the salt and bytes 16 to 23, or none in legacy mode
    /// (the salt then overwrites the encrypted magic).
    var plainBytes: Int { legacy ? 0 : 24 }

    /// One line for reports: `ChaCha20-Poly1305, kdf_iter 64007, page size 4096`.
    public var summary: String {
        "ChaCha20-Poly1305, kdf_iter \(kdfIterations)\(legacy ? ", legacy (sqleet)" : ""), page size \(pageSize)"
    }
}
