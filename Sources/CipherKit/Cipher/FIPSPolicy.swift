/// What FIPS mode refuses, in one place: what OpenSSL's FIPS provider would refuse, and
/// what cipherctl cannot run through OpenSSL's EVP interface.
///
/// - PBKDF2 from a passphrase below 1,000 iterations: SP 800-132's lower bound, which the
///   FIPS provider's PBKDF2 enforces (with a salt of at least 128 bits and a key of at least
///   112, which every SQLCipher derivation has). SQLCipher's HMAC key, derived from the page
///   key (not a passphrase) with 2 iterations, goes through the same `EVP_KDF` with those
///   checks turned off for that call: without it no SQLCipher file with HMAC could be read.
/// - The settings search, which takes PBKDF2 apart to test every count: it does not run, so a
///   key that no known format and no given setting opens is reported as such.
/// - Ciphers other than SQLCipher's AES-256-CBC (`requireApproved(cipher:)`): the hook for
///   other families' formats.
///
/// SQLCipher 1 and 2 files (SHA1, 4,000 iterations, no HMAC in 1) and raw keys stay allowed:
/// their operations are approved ones, though a file without HMAC has no authentication.
/// See https://docs.openssl.org/3.0/man7/EVP_KDF-PBKDF2/
public enum FIPSPolicy {
    /// The fewest PBKDF2 iterations FIPS mode derives a passphrase's key with.
    public static let minimumIterations = 1_000

    /// Throws when FIPS mode is on and `settings` ask for what it refuses.
    ///
    /// - Throws: `FIPSRefusal.kdfIterations`.
    public static func check(_ settings: CipherSettings, mode: CryptoMode = .current) throws {
        guard mode == .fips else { return }
        if let iterations = settings.kdfIterations, iterations < minimumIterations {
            throw FIPSRefusal.kdfIterations(iterations)
        }
    }

    /// Throws when FIPS mode is on and the data would go through `cipher` (a name such as
    /// "ChaCha20-Poly1305" or "RC4"), anything but SQLCipher's AES-256-CBC through OpenSSL.
    ///
    /// - Throws: `FIPSRefusal.cipher`.
    public static func requireApproved(cipher: String, mode: CryptoMode = .current) throws {
        guard mode == .fips else { return }
        throw FIPSRefusal.cipher(cipher)
    }

}
