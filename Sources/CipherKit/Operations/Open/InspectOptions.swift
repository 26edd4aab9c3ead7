/// What `DatabaseInspector` adds to a profile.
public struct InspectOptions: Equatable, Sendable {
    /// Count the rows of every table.
    public var countRows: Bool
    /// Run SQLCipher's and SQLite's integrity checks.
    public var checkIntegrity: Bool

    public init(countRows: Bool = false, checkIntegrity: Bool = false) {
        self.countRows = countRows
        self.checkIntegrity = checkIntegrity
    }
}
