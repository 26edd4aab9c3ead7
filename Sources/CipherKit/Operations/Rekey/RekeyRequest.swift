import FoundationEssentials

/// What `Rekeyer.rekey` changes on one database.
public struct RekeyRequest {
    /// The database with its current key and settings (the mode is ignored).
    public var database: OpenRequest
    public var newKey: KeyMaterial
    /// Settings to change; empty keeps them (and allows an in-place rekey).
    public var newSettings: CipherSettings
    /// Give the database a new salt (through export-and-replace): `newSaltValue`, or a random one.
    public var newSalt = false
    /// The new salt, when one is chosen; nil for a random one.
    public var newSaltValue: [UInt8]?
    /// Keep the original file here (export-and-replace: a hard link to the old file).
    public var backupPath: String?
    /// With no `backupPath`, keep the original beside the database under a name made from
    /// this time (`DB.backup-STAMP`); one time for a batch gives its backups one stamp.
    public var defaultBackupTime: Date?
    /// Verify afterwards (integrity, snapshot, old key refused).
    public var verify: Bool
    /// Check everything and change nothing.
    public var dryRun: Bool
    /// Derive the new key on another core while the current one is derived. Worth it for one
    /// database; a batch already keeps every core busy with one database each.
    public var deriveConcurrently: Bool = true

    /// Run the full checks (SQLite's integrity checks and every table's row count) even after
    /// a page-engine copy, whose pages are already proven one by one.
    public var fullVerification = false
    /// Threads for the page engine; one per core by default.
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// Keep the file itself (its inode, links and attributes) for a key-only change: rewrite
    /// it in place through SQLite instead of renaming a page-engine copy over it.
    public var inPlace = false

    /// Rewrite every page in place under a progress record, with no second copy
    /// (`LowSpaceRotator`); a key-only change.
    public var lowSpace = false
    /// With `lowSpace`: roll an interrupted rotation back to the old key instead of finishing it.
    public var undo = false

    /// Told of each leftover of an interrupted run as the operation removes it.
    public var leftoverRemoved: LeftoverListener?

    public init(
        database: OpenRequest, newKey: KeyMaterial, newSettings: CipherSettings = CipherSettings(),
        backupPath: String? = nil, verify: Bool = true, dryRun: Bool = false
    ) {
        self.database = database
        self.newKey = newKey
        self.newSettings = newSettings
        self.backupPath = backupPath
        self.verify = verify
        self.dryRun = dryRun
    }
}
