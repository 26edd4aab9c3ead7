import CCipherProvider

/// The settings of a SQLCipher 1 to 3 file written under a `PRAGMA cipher` other than
/// AES-256-CBC, which SQLCipher 4 cannot read: the cipher, the KDF's iterations (64,000 for
/// SQLCipher 3's defaults, 4,000 for 2's and 1's), whether pages carry an HMAC (not in
/// SQLCipher 1), and the page size.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher
public struct LegacyCipherScheme: Equatable, Sendable {
    /// The ciphers read, as `PRAGMA cipher` names them.
    public enum Cipher: String, CaseIterable, Sendable {
        case aes128cbc = "aes-128-cbc"
        case aes192cbc = "aes-192-cbc"
        case aes256cfb = "aes-256-cfb"
        case aes128cfb = "aes-128-cfb"

        /// The cipher's number in `LegacyCipherPage.c`.
        var code: Int32 {
            switch self {
            case .aes128cbc: return LEGACYPAGE_AES128_CBC
            case .aes192cbc: return LEGACYPAGE_AES192_CBC
            case .aes256cfb: return LEGACYPAGE_AES256_CFB
            case .aes128cfb: return LEGACYPAGE_AES128_CFB
            }
        }

        /// The key's length in bytes: the first bytes of the KDF's output (PBKDF2-HMAC-SHA1),
        /// so a shorter key is a prefix of AES-256-CBC's.
        var keyLength: Int {
            switch self {
            case .aes128cbc, .aes128cfb: return 16
            case .aes192cbc: return 24
            case .aes256cfb: return 32
            }
        }
    }

    public var cipher: Cipher
    public var kdfIterations: Int
    public var hmac: Bool
    public var pageSize: Int
    /// Whether the page number goes into each HMAC big-endian, as SQLCipher 2.0 wrote it on a
    /// big-endian machine.
    public var bigEndianPageNumbers: Bool
    /// The byte the salt is XORed with for the HMAC key: 0x3a unless the file was written
    /// under the deprecated `PRAGMA cipher_hmac_salt_mask`.
    public var hmacSaltMask: UInt8

    public init(cipher: Cipher, kdfIterations: Int, hmac: Bool, pageSize: Int, bigEndianPageNumbers: Bool = false, hmacSaltMask: UInt8 = 0x3a) {
        self.cipher = cipher
        self.kdfIterations = kdfIterations
        self.hmac = hmac
        self.pageSize = pageSize
        self.bigEndianPageNumbers = bigEndianPageNumbers
        self.hmacSaltMask = hmacSaltMask
    }

    /// The SQLCipher version whose defaults the scheme has: 3 (64,000 iterations), 2, or 1
    /// (no HMAC).
    public var version: Int { !hmac ? 1 : kdfIterations == 64_000 ? 3 : 2 }

    /// One line for reports: `SQLCipher 3 with PRAGMA cipher aes-128-cbc (kdf_iter 64000, page size 1024)`.
    public var summary: String {
        var hmacNote = !hmac ? ", no HMAC" : bigEndianPageNumbers ? ", HMAC page numbers big-endian" : ""
        if hmac, hmacSaltMask != 0x3a { hmacNote += ", HMAC salt mask 0x" + Hex.encode([hmacSaltMask]) }
        return "SQLCipher \(version) with PRAGMA cipher \(cipher.rawValue) (kdf_iter \(kdfIterations)\(hmacNote), page size \(pageSize))"
    }
}
