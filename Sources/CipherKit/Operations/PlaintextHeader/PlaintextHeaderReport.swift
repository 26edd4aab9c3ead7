import FoundationEssentials

/// What `PlaintextHeaderMover.move` did.
public struct PlaintextHeaderReport: Equatable {
    public var path: String
    public var oldSize: Int
    public var newSize: Int
    /// The database's salt, which a plaintext-header database needs at every open.
    public var salt: [UInt8]
    /// Where the salt was saved, if asked.
    public var saltOutputPath: String?
    /// False when the header already had the size asked for (nothing was written).
    public var changed: Bool
    public var seconds: Double
    public var verification: VerificationReport?
    public var removedLeftovers: [String]
    public var snapshot: DatabaseSnapshot?
    /// The format the search found; nil when settings were given.
    public var format: CipherFormat?
    public var formatAttempts: Int
}
