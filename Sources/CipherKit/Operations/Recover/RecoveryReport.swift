/// What a recovery salvaged and what it lost.
public struct RecoveryReport: Equatable, Sendable {
    /// Pages of the source.
    public var pages: Int
    /// The pages that failed their HMAC (or could not be read), whose content is lost.
    public var lostPages: [Int]
    /// The rows each table of the new database holds (`lost_and_found` holds rows whose
    /// table could not be told).
    public var tables: [TableRowCount]
}
