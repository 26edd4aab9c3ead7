/// Everything needed to open a database: where, with which key and settings, how.
///
/// `key` is nil for a plaintext database.
public struct OpenRequest {
    public var path: String
    public var key: KeyMaterial?
    public var settings: CipherSettings
    public var mode: OpenMode
    public var busyTimeoutMilliseconds: Int
    public var logLevel: CipherLogLevel
    /// Whether the connection reads and writes the database and its WAL in large blocks while
    /// it holds the database exclusively (`CoalescingVFS`): CipherKit's rekey and export set it.
    var coalescedIO = false
    /// Whether, when no known format opens the file, its settings are searched for
    /// (`SettingsSearch`). A rekey first tries without, so that a rerun whose old key no
    /// longer opens the file finds the new key at once.
    public var searchesSettings = true
    /// Whether a read-only open must leave every file as it was: no -wal or -shm made beside
    /// a WAL database, no read mark written into an -shm (`DatabaseOpener.untouchedRead`).
    /// For callers that only look and hold no other connection to the file in this process
    /// (closing a descriptor drops the process's POSIX locks, so an own connection's lock would
    /// go unseen).
    public var leavesFilesAlone = false
    /// Whether the open goes on past a -wal whose commits SQLite would drop for a damaged
    /// frame (`DatabaseOpener.refuseDroppedCommits`): for a check that reports the damage,
    /// and a recovery that reads the -wal itself.
    public var readsPastDroppedCommits = false
    /// Raw keys this request's passphrase was already derived to under the file's salt, by
    /// KDF parameters (a rekey's new key, derived while the old one was tried): the known
    /// formats' tries take them instead of deriving again.
    var derivedKeys: [KeyDerivation.Parameters: KeyMaterial] = [:]
    /// For a look that must write nothing at all: how the read-only
    /// connection leaves the files alone (`SQLiteURI.Untouched`); nil for an ordinary open.
    var untouched: SQLiteURI.Untouched?

    public init(
        path: String, key: KeyMaterial?, settings: CipherSettings = CipherSettings(), mode: OpenMode = .readOnly,
        busyTimeoutMilliseconds: Int = 0, logLevel: CipherLogLevel = .none
    ) {
        self.path = path
        self.key = key
        self.settings = settings
        self.mode = mode
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.logLevel = logLevel
    }
}
