/// The scheme of a source that is not SQLCipher's: SQLite3 Multiple Ciphers' ChaCha20
/// (sqleet's format), or one of its unauthenticated schemes (wxSQLite3's AES, RC4).
public enum ForeignScheme: Equatable, Sendable {
    case chacha20(ChaChaScheme)
    case wx(WxScheme)

    public var family: CipherFamily {
        switch self {
        case .chacha20: return .chacha20
        case .wx(let scheme): return scheme.family
        }
    }

    /// The cipher's name, for FIPS mode's refusal.
    var cipherName: String {
        switch self {
        case .chacha20: return "ChaCha20-Poly1305"
        case .wx(let scheme): return scheme.cipherName
        }
    }

    public var summary: String {
        switch self {
        case .chacha20(let scheme): return scheme.summary
        case .wx(let scheme): return scheme.summary
        }
    }

    public var pageSize: Int {
        switch self {
        case .chacha20(let scheme): return scheme.pageSize
        case .wx(let scheme): return scheme.pageSize
        }
    }

    public var legacy: Bool {
        switch self {
        case .chacha20(let scheme): return scheme.legacy
        case .wx(let scheme): return scheme.legacy
        }
    }

    /// The KDF's iterations; nil for the schemes whose KDF takes no count.
    public var kdfIterations: Int? {
        guard case .chacha20(let scheme) = self else { return nil }
        return scheme.kdfIterations
    }

    /// The source decrypted into memory, page 1 beginning with "SQLite format 3\0".
    func image(_ path: String, key: KeyMaterial) throws -> [UInt8] {
        switch self {
        case .chacha20(let scheme): return try ChaChaImage.read(path, key: key, scheme: scheme).bytes
        case .wx(let scheme): return try WxImage.read(path, key: key, scheme: scheme).bytes
        }
    }
}
