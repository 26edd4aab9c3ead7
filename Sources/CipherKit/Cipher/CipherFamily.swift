/// The family of encrypted SQLite file a copy is read from or written as: SQLCipher's, or
/// SQLite3 Multiple Ciphers' ChaCha20 scheme (sqleet's format).
/// See https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_chacha20/
public enum CipherFamily: String, CaseIterable, Sendable {
    case sqlcipher
    case chacha20
}
