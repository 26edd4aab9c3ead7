/// The scheme of a source that is not SQLCipher's: SQLite3 Multiple Ciphers' ChaCha20
/// (sqleet's format), one of its unauthenticated schemes (wxSQLite3's AES, RC4), or its
/// SQLCipher scheme outside legacy mode, whose settings (complete, with a 24-byte plaintext
/// header) are SQLCipher's own; or a SQLCipher 1 to 3 file under a `PRAGMA cipher` other
/// than AES-256-CBC (`LegacyCipherScheme`).
public enum ForeignScheme: Equatable, Sendable {
    case chacha20(ChaChaScheme)
    case wx(WxScheme)
    case sqlite3mcSQLCipher(CipherSettings)
    case legacyCipher(LegacyCipherScheme)

    public var family: CipherFamily {
        switch self {
        case .chacha20: return .chacha20
        case .wx(let scheme): return scheme.family
        case .sqlite3mcSQLCipher: return .sqlite3mcSQLCipher
        case .legacyCipher: return .sqlcipherOtherCipher
        }
    }

    /// The cipher's name, for FIPS mode's refusal; nil for SQLCipher's own AES-256-CBC,
    /// which the page codec runs through EVP in that mode.
    var cipherName: String? {
        switch self {
        case .chacha20: return "ChaCha20-Poly1305"
        case .wx(let scheme): return scheme.cipherName
        case .sqlite3mcSQLCipher: return nil
        case .legacyCipher(let scheme): return scheme.cipher.rawValue
        }
    }

    /// The scheme's name in JSON's `source_scheme`: the family, or for a SQLCipher 1 to 3
    /// file the `PRAGMA cipher` it was written under.
    public var cipherLabel: String {
        if case .legacyCipher(let scheme) = self { return scheme.cipher.rawValue }
        return family.rawValue
    }

    /// One line for reports, naming who writes such files.
    public var origin: String {
        if case .legacyCipher = self { return summary }
        return "SQLite3 Multiple Ciphers' \(summary)"
    }

    public var summary: String {
        switch self {
        case .chacha20(let scheme): return scheme.summary
        case .wx(let scheme): return scheme.summary
        case .sqlite3mcSQLCipher(let settings): return SQLCipherSchemeImage.summary(settings)
        case .legacyCipher(let scheme): return scheme.summary
        }
    }

    public var pageSize: Int {
        switch self {
        case .chacha20(let scheme): return scheme.pageSize
        case .wx(let scheme): return scheme.pageSize
        case .sqlite3mcSQLCipher(let settings): return settings.pageSize ?? 4096
        case .legacyCipher(let scheme): return scheme.pageSize
        }
    }

    public var legacy: Bool {
        switch self {
        case .chacha20(let scheme): return scheme.legacy
        case .wx(let scheme): return scheme.legacy
        case .sqlite3mcSQLCipher, .legacyCipher: return false
        }
    }

    /// The byte order of the page number in each page's HMAC (big-endian only for SQLCipher
    /// 2.0 on a big-endian machine); nil for the schemes without a page HMAC.
    public var hmacPageNumber: HMACPageNumber? {
        switch self {
        case .chacha20, .wx: return nil
        case .sqlite3mcSQLCipher: return .littleEndian
        case .legacyCipher(let scheme): return !scheme.hmac ? nil : scheme.bigEndianPageNumbers ? .bigEndian : .littleEndian
        }
    }

    /// The byte the salt is XORed with for the HMAC key (0x3a unless the file was written
    /// under `PRAGMA cipher_hmac_salt_mask`); nil for the schemes without a page HMAC.
    public var hmacSaltMask: UInt8? {
        switch self {
        case .chacha20, .wx: return nil
        case .sqlite3mcSQLCipher(let settings): return settings.hmacSaltMask ?? 0x3a
        case .legacyCipher(let scheme): return scheme.hmac ? scheme.hmacSaltMask : nil
        }
    }

    /// The KDF's iterations; nil for the schemes whose KDF takes no count.
    public var kdfIterations: Int? {
        switch self {
        case .chacha20(let scheme): return scheme.kdfIterations
        case .wx: return nil
        case .sqlite3mcSQLCipher(let settings): return settings.kdfIterations
        case .legacyCipher(let scheme): return scheme.kdfIterations
        }
    }

    /// The source decrypted into memory, page 1 beginning with "SQLite format 3\0".
    func image(_ path: String, key: KeyMaterial) throws -> [UInt8] {
        switch self {
        case .chacha20(let scheme): return try ChaChaImage.read(path, key: key, scheme: scheme).bytes
        case .wx(let scheme): return try WxImage.read(path, key: key, scheme: scheme).bytes
        case .sqlite3mcSQLCipher(let settings): return try SQLCipherSchemeImage.read(path, key: key, settings: settings)
        case .legacyCipher(let scheme): return try LegacyCipherImage.read(path, key: key, scheme: scheme)
        }
    }
}
