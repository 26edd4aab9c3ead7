/// What `open` reports of a database: its file, its cipher settings, its header and schema.
public struct DatabaseProfile: Equatable, Sendable {
    public var path: String
    public var fileSize: Int
    /// Whether the file is encrypted; false for a plaintext SQLite database.
    public var encrypted: Bool
    /// The cipher settings in effect, every field filled, with `compatibility` set when they
    /// are exactly one SQLCipher version's defaults; nil for a plaintext database.
    public var cipher: CipherSettings?
    /// The page size SQLite uses (the cipher page size for an encrypted database).
    public var pageSize: Int
    public var pageCount: Int
    public var freelistCount: Int
    public var journalMode: String
    /// Whether a hot journal lies beside the file: the profile is of the database as rolled
    /// back in memory, the file and the journal left as they are.
    public var hotJournal = false
    public var encoding: String
    public var userVersion: Int
    public var applicationID: Int
    public var autoVacuum: String
    public var tableCount: Int
    public var indexCount: Int
    public var viewCount: Int
    public var triggerCount: Int
    /// Rows of every table, when asked for.
    public var rowCounts: [TableRowCount]?
    /// Integrity checks, when asked for.
    public var integrity: IntegrityReport?
    /// The format the search found; nil when settings were given or the file is plaintext.
    public var detectedFormat: CipherFormat?
    /// How many formats were tried to open it (1 when settings were given).
    public var formatAttempts = 1
    /// Seconds the settings search took, when it found the settings (`SettingsSearch`).
    public var searchSeconds: Double?

    /// One line naming the format: `SQLCipher 3 format: page size 1024, KDF iterations 64000,
    /// HMAC-SHA1, PBKDF2-HMAC-SHA1`, `SQLCipher custom format: …` or `plaintext SQLite`.
    public var formatDescription: String {
        guard let cipher else { return "plaintext SQLite" }
        let name = foundFormat?.name ?? formatVersion.map { "SQLCipher \($0)" } ?? "SQLCipher custom"
        return name + " format: " + cipher.summary
    }

    /// The SQLCipher version of the format, when it is one version's defaults; a deprecated
    /// HMAC salt mask beside them is named in the summary, not counted against them.
    public var formatVersion: Int? {
        foundFormat?.version ?? cipher?.compatibility ?? cipher?.with(\.hmacSaltMask, nil).matchingCompatibility
    }

    /// The format the search found, unless the file's page size is another (a plaintext
    /// header shows its own, which the search takes in every format).
    private var foundFormat: CipherFormat? {
        detectedFormat.flatMap { cipher?.pageSize == nil || cipher?.pageSize == $0.settings.pageSize ? $0 : nil }
    }
}
