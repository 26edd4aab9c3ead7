/// A database `DatabaseOpener` opened and proved: the connection, and how it was opened.
public struct OpenedDatabase {
    public let connection: Connection
    /// What the probe saw of the file.
    public let file: DatabaseFile
    /// The key to reopen the file with: the raw key derived from a passphrase when it opened
    /// the file (a reopen then derives nothing), else the request's own key.
    public let key: KeyMaterial?
    /// The settings the file opened with: the request's, or the format the search found,
    /// with the plaintext header size and salt used.
    public let settings: CipherSettings
    /// The format the search found; nil when settings were given, or for a plaintext file.
    public let format: CipherFormat?
    /// How many formats were tried (1 when settings were given), searched settings included.
    public let attempts: Int
    /// Seconds the settings search took, when no known format opened the file and the search
    /// found its settings (`SettingsSearch`); nil otherwise.
    public var searchSeconds: Double? = nil
    /// Whether a hot journal (a writer that died mid-transaction) lies beside the file, so
    /// that this look reads the database as rolled back in memory (`SnapshotVFS`), leaving
    /// the file and the journal as they are.
    public internal(set) var readPastHotJournal = false
    /// Whether a -wal or -shm was beside the file before this open; a read-write open of a
    /// WAL database makes both when neither was.
    var walFilesExistedBefore = true
    /// Whether a -shm was beside the file before this open; a read-write open of a WAL
    /// database makes one beside a -wal that had none (a killed writer's).
    var sharedMemoryExistedBefore = true
    /// Whether a rollback journal was beside the file before this open.
    var journalExistedBefore = true
    /// The -wal a read-write open found, to take off what a failed write appended to it.
    var walTail: WALTail?
    /// The -shm a read-write open found and no process held, to put back after a failed write.
    var staleSharedMemory: StaleSharedMemory?
    /// How the connection leaves the files alone, when it does; a reopen for the same read
    /// (a lane of `ParallelIntegrityCheck`) reads as it does.
    var untouched: SQLiteURI.Untouched?
}
