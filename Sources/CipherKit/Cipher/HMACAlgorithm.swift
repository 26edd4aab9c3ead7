/// The HMAC that authenticates each page.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_hmac_algorithm
public enum HMACAlgorithm: String, CaseIterable, Sendable {
    case sha1 = "HMAC_SHA1"
    case sha256 = "HMAC_SHA256"
    case sha512 = "HMAC_SHA512"

    /// Parses `SHA1`, `HMAC_SHA1`, `hmac-sha1` and the like, in any case.
    public init?(name: String) {
        let normalized = name.uppercased().replacing("-", with: "_")
        let bare = normalized.hasPrefix("HMAC_") ? String(normalized.dropFirst(5)) : normalized
        switch bare {
        case "SHA1": self = .sha1
        case "SHA256": self = .sha256
        case "SHA512": self = .sha512
        default: return nil
        }
    }

    /// The short name users type: `SHA1`, `SHA256`, `SHA512`.
    public var shortName: String { String(rawValue.dropFirst(5)) }
}
