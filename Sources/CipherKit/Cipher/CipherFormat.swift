/// One on-disk format SQLCipher has written by default, as the format search tries it.
///
/// SQLCipher 1 to 4 differ in page size, KDF iterations and algorithms, and whether pages
/// carry an HMAC; SQLCipher 2.0 on a big-endian machine also put the page number into the
/// HMAC big-endian.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_compatibility
public struct CipherFormat: Equatable, Sendable {
    /// The SQLCipher major version (1 to 4).
    public let version: Int
    /// Set only for the SQLCipher 2.0 big-endian variant.
    public let hmacPageNumber: HMACPageNumber?

    public init(version: Int, hmacPageNumber: HMACPageNumber? = nil) {
        self.version = version
        self.hmacPageNumber = hmacPageNumber
    }

    /// The order the search tries: the newest (and most likely) first, SQLCipher 1 last, as it
    /// has no HMAC to reject a wrong key early.
    public static let searchOrder: [CipherFormat] = [
        CipherFormat(version: 4), CipherFormat(version: 3), CipherFormat(version: 2),
        CipherFormat(version: 2, hmacPageNumber: .bigEndian), CipherFormat(version: 1),
    ]

    /// The full settings of this format, `compatibility` set.
    public var settings: CipherSettings {
        var settings = CipherSettings.defaults(forCompatibility: version) ?? CipherSettings()
        settings.compatibility = version
        settings.hmacPageNumber = hmacPageNumber
        return settings
    }

    /// `SQLCipher 3`, or `SQLCipher 2 (big-endian)`.
    public var name: String {
        "SQLCipher \(version)" + (hmacPageNumber == .bigEndian ? " (big-endian)" : "")
    }
}
