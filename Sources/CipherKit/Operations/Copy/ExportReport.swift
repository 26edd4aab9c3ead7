/// What an export did.
public struct ExportReport: Equatable, Sendable {
    public var source: String
    public var destination: String
    /// The source's cipher settings; nil for a plaintext source.
    public var sourceSettings: CipherSettings?
    /// The destination's cipher settings as written; nil for a plaintext destination.
    public var destinationSettings: CipherSettings?
    public var pages: Int
    public var bytes: Int
    /// Seconds spent writing the copy, verification excluded.
    public var seconds: Double
    /// Seconds spent verifying it.
    public var verificationSeconds: Double
    public var verification: VerificationReport?
    /// Temporary files of interrupted earlier runs beside the destination that this run removed.
    public var removedLeftovers: [String]
    /// What the source held when it was copied.
    public var snapshot: DatabaseSnapshot
    /// The format the search found for the database; nil when its settings were given.
    public var sourceFormat: CipherFormat?
    /// How many formats were tried to open it (1 when its settings were given).
    public var sourceFormatAttempts: Int
    /// How the copy was written.
    public var method: CopyMethod
    /// True when the destination already held a verified copy with the destination key and
    /// settings, so nothing was written (a rerun).
    public var alreadyDone = false
    /// The source's SQLite3 Multiple Ciphers scheme; nil for a SQLCipher or plaintext source.
    public var sourceScheme: ForeignScheme? = nil
    /// The destination's ChaCha20 scheme; nil when it was written as SQLCipher's or plaintext.
    public var destinationScheme: ChaChaScheme? = nil
}
