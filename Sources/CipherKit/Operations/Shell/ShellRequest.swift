/// What `ShellKeyer` prepares a shell for: the database with its key and settings, whether
/// the shell may write, and the user's own start-up file for the shell to read after keying.
public struct ShellRequest {
    public var database: OpenRequest
    /// Whether the shell opens the file read-write; read-only otherwise.
    public var writes: Bool
    /// The shell's start-up file that `-init` replaces (`~/.sqliterc`), when there is one.
    public var startupFile: String?

    public init(database: OpenRequest, writes: Bool = false, startupFile: String? = nil) {
        self.database = database
        self.writes = writes
        self.startupFile = startupFile
    }
}
