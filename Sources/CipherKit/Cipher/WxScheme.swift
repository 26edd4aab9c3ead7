import CCipherProvider

/// The settings of a file in one of SQLite3 Multiple Ciphers' unauthenticated schemes:
/// wxSQLite3's AES-128-CBC or AES-256-CBC, or System.Data.SQLite's RC4 (`CipherFamily`);
/// legacy mode (page 1 encrypted whole, so the page size is not in the file; RC4 always);
/// and the page size. Their KDFs take no count and no salt.
/// See https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_overview/
public struct WxScheme: Equatable, Sendable {
    public var family: CipherFamily
    public var legacy: Bool
    public var pageSize: Int

    public init(family: CipherFamily, legacy: Bool, pageSize: Int) {
        self.family = family
        self.legacy = legacy
        self.pageSize = pageSize
    }

    /// The families of these schemes, in the order a key is tried on a file.
    static let families: [CipherFamily] = [.aes128cbc, .aes256cbc, .rc4]

    /// The scheme's number in `WxPage.c`.
    var code: Int32 {
        switch family {
        case .aes128cbc: return WXPAGE_AES128
        case .aes256cbc: return WXPAGE_AES256
        default: return WXPAGE_RC4
        }
    }

    /// The scheme's name as its authors give it, for messages and FIPS mode's refusal.
    public var cipherName: String {
        switch family {
        case .aes128cbc: return "wxSQLite3 AES-128-CBC"
        case .aes256cbc: return "wxSQLite3 AES-256-CBC"
        default: return "System.Data.SQLite RC4"
        }
    }

    /// One line for reports: `wxSQLite3 AES-128-CBC, legacy, page size 4096`.
    public var summary: String {
        "\(cipherName)\(legacy && family != .rc4 ? ", legacy" : ""), page size \(pageSize)"
    }
}
