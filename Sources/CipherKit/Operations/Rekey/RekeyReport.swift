/// What a rekey did (or, in a dry run, would do).
public struct RekeyReport: Equatable, Sendable {
    public var path: String
    public var action: RekeyAction
    public var oldSettings: CipherSettings
    public var newSettings: CipherSettings
    public var pages: Int
    public var bytes: Int
    /// Seconds spent changing the database, verification excluded.
    public var seconds: Double
    /// Seconds spent verifying it.
    public var verificationSeconds: Double
    /// Nil when verification was skipped or in a dry run.
    public var verification: VerificationReport?
    public var backupPath: String?
    public var dryRun: Bool
    /// Temporary files of interrupted earlier runs that this run removed.
    public var removedLeftovers: [String]
    /// What the database held before the change.
    public var snapshot: DatabaseSnapshot
    /// The format the search found for the database; nil when its settings were given.
    public var format: CipherFormat?
    /// How many formats were tried to open it (1 when its settings were given).
    public var formatAttempts: Int
    /// How the new copy was written, for export-and-replace; nil in place.
    public var copyMethod: CopyMethod? = nil
    /// True when an in-place rekey killed after its commit had already changed the key, and
    /// this run only put the journal mode back and verified (see `InterruptedRekey`).
    public var finishedInterrupted = false
}
