/// A database's salt, as `SaltReader` found it.
public struct SaltReport: Equatable, Sendable {
    public var path: String
    /// The 16-byte salt.
    public var salt: [UInt8]
    public var source: SaltSource
    /// The format the search found, when the key opened the file without settings.
    public var format: CipherFormat?
    public var formatAttempts: Int
}
