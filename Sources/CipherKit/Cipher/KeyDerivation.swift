import CCipherProvider

/// Derives a passphrase's key once, as SQLCipher would (PBKDF2 with the database's salt,
/// iterations and algorithm), and gives it back as a raw key with its salt, which SQLCipher
/// uses without deriving again.
///
/// A rekey then costs two derivations per database, like the shell (old key, new key),
/// however often it reopens the file to verify. The derivation is proved on every use: the
/// old key, derived here, must open the database before anything is written with a new key
/// derived the same way. Where it does not (settings CipherKit cannot see), callers fall back
/// to SQLCipher's own derivation. The PBKDF2 is CCipherProvider's: the same bytes as
/// OpenSSL's, in two thirds to four fifths of the time.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#key
public enum KeyDerivation {
    /// The key SQLCipher would derive from `key` for a database with `salt` and `settings`
    /// (only `kdfIterations` and `kdfAlgorithm` matter; nil means SQLCipher 4's defaults).
    ///
    /// A raw key is returned with `salt` attached (or as it is, when it carries one).
    /// - Throws: `CipherKitError.refused` when OpenSSL fails.
    public static func rawKey(for key: KeyMaterial, salt: [UInt8], settings: CipherSettings) throws -> KeyMaterial {
        precondition(salt.count == 16, "a SQLCipher salt is 16 bytes; callers read it from the file or the settings")
        switch key.kind {
        case .rawKeyWithSalt:
            return key
        case .rawKey:
            return try key.codecBytes.withUnsafeBytes { bytes in
                // x'<64 hex>' → x'<64 hex><32 hex salt>'
                var literal = Array(bytes.dropLast())
                defer { SecureBytes.wipe(&literal) }
                literal.append(contentsOf: Hex.encodeBytes(salt))
                literal.append(UInt8(ascii: "'"))
                return try KeyMaterial.rawKey(hex: literal)
            }
        case .passphrase:
            let kdf = parameters(for: settings)
            let iterations = kdf.iterations, algorithm = kdf.algorithm
            var derived = [UInt8](repeating: 0, count: 32)
            defer { SecureBytes.wipe(&derived) }
            let status = key.codecBytes.withUnsafeBytes { pass in
                salt.withUnsafeBufferPointer { salt in
                    var kdf = cipherprovider_kdf(
                        pass: pass.baseAddress, pass_length: Int32(pass.count), salt: salt.baseAddress, salt_length: Int32(salt.count),
                        iterations: Int32(iterations), digest: algorithm.digestBits)
                    return cipherprovider_pbkdf2(&kdf, &derived, 32)
                }
            }
            guard status == 1 else { throw CipherKitError.crypto(operation: "key derivation failed") }
            var hexKey = Hex.encodeBytes(derived)
            defer { SecureBytes.wipe(&hexKey) }
            var literal = Array("x'".utf8) + hexKey + Hex.encodeBytes(salt) + [UInt8(ascii: "'")]
            defer { SecureBytes.wipe(&literal) }
            return try KeyMaterial.rawKey(hex: literal)
        }
    }
}

extension KeyDerivation {
    /// What a passphrase's derivation depends on besides the salt.
    public struct Parameters: Hashable, Sendable {
        public let iterations: Int
        public let algorithm: KDFAlgorithm
    }

    /// The KDF iterations and algorithm `settings` give, or their compatibility's defaults
    /// (SQLCipher 4's when none).
    public static func parameters(for settings: CipherSettings) -> Parameters {
        let effective = settings.effective
        return Parameters(
            iterations: effective.kdfIterations ?? 256_000,
            algorithm: effective.kdfAlgorithm ?? .pbkdf2SHA512)
    }
}

extension KDFAlgorithm {
    /// The digest `cipherprovider_pbkdf2` is asked for (1 for SHA-1).
    var digestBits: Int32 {
        switch self {
        case .pbkdf2SHA1: return 1
        case .pbkdf2SHA256: return 256
        case .pbkdf2SHA512: return 512
        }
    }
}

extension KeyDerivation {
    /// A fresh random 16-byte salt from the system's secure generator.
    public static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
