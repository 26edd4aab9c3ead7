/// The key derivation function that stretches a passphrase.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_kdf_algorithm
public enum KDFAlgorithm: String, CaseIterable, Sendable {
    case pbkdf2SHA1 = "PBKDF2_HMAC_SHA1"
    case pbkdf2SHA256 = "PBKDF2_HMAC_SHA256"
    case pbkdf2SHA512 = "PBKDF2_HMAC_SHA512"

    /// Parses `PBKDF2_HMAC_SHA512`, `SHA512` and the like, in any case.
    public init?(name: String) {
        let normalized = name.uppercased().replacing("-", with: "_")
        let bare = normalized.hasPrefix("PBKDF2_HMAC_") ? String(normalized.dropFirst(12)) : normalized
        switch bare {
        case "SHA1": self = .pbkdf2SHA1
        case "SHA256": self = .pbkdf2SHA256
        case "SHA512": self = .pbkdf2SHA512
        default: return nil
        }
    }
}
