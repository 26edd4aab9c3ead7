/// What `Rekeyer.rekey` changes on one database.
public struct RekeyRequest {
    /// The database with its current key and settings (the mode is ignored).
    public var database: OpenRequest
    public var newKey: KeyMaterial
    /// Settings to change; empty keeps them (and allows an in-place rekey).
    public var newSettings: CipherSettings
    /// Give the database a fresh random salt (through export-and-replace).
    public var newSalt: Bool
    /// Keep the original file here (export-and-replace: a hard link to the old file).
    public var backupPath: String?
    /// Verify afterwards (integrity, snapshot, old key refused).
    public var verify: Bool
    /// Check everything and change nothing.
    public var dryRun: Bool
    /// Derive the new key on another core while the current one is derived. Worth it for one
    /// database; a batch already keeps every core busy with one database each.
    public var deriveConcurrently: Bool = true

    public init(
        database: OpenRequest, newKey: KeyMaterial, newSettings: CipherSettings = CipherSettings(), newSalt: Bool = false,
        backupPath: String? = nil, verify: Bool = true, dryRun: Bool = false
    ) {
        self.database = database
        self.newKey = newKey
        self.newSettings = newSettings
        self.newSalt = newSalt
        self.backupPath = backupPath
        self.verify = verify
        self.dryRun = dryRun
    }
}
