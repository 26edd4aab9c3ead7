/// What `PlaintextHeaderMover.move` changes: which database, to which header size, and
/// where the salt is saved first.
public struct PlaintextHeaderRequest {
    /// The database with its key and current settings (the mode is ignored).
    public var database: OpenRequest
    /// The new plaintext header size: 0 for a fully encrypted header, else a multiple of 16
    /// smaller than the page's usable size.
    public var size: Int
    /// A new file (mode 0600) to save the salt to before anything changes.
    public var saltOutputPath: String?
    /// Verify the result before it replaces the original.
    public var verify: Bool

    /// Told of each leftover of an interrupted run as the operation removes it.
    public var leftoverRemoved: LeftoverListener?

    public init(database: OpenRequest, size: Int, saltOutputPath: String? = nil, verify: Bool = true) {
        self.database = database
        self.size = size
        self.saltOutputPath = saltOutputPath
        self.verify = verify
    }
}
