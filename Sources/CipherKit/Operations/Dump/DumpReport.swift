/// What a dump wrote.
public struct DumpReport: Equatable, Sendable {
    public var tables: Int
    public var rows: Int
    /// The format the search found; nil when settings were given or the file is plaintext.
    public var format: CipherFormat?
    public var formatAttempts: Int
}
