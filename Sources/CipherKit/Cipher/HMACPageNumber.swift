/// The byte order of the page number that goes into each page's HMAC.
///
/// SQLCipher 2.0 on a big-endian machine wrote it big-endian; every other version and machine
/// writes it little-endian, which is SQLCipher's default.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_hmac_pgno
public enum HMACPageNumber: String, CaseIterable, Sendable {
    case littleEndian = "le"
    case bigEndian = "be"
    case native

    /// Parses `le`, `be` or `native`, in any case.
    public init?(name: String) {
        self.init(rawValue: name.lowercased())
    }
}
