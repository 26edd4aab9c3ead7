/// What a recovery salvaged and what it lost.
public struct RecoveryReport: Equatable, Sendable {
    /// Pages of the source: its header's count, or the pages present and pointed at.
    public var pages: Int
    /// The pages whose content is lost: they fail their HMAC, or the file ends before them.
    public var lostPages: [Int]
    /// The rows each table of the new database holds (`lost_and_found` holds rows whose
    /// table could not be told).
    public var tables: [TableRowCount]
    /// What each table, index or list lost, in the order of its first lost page.
    public var losses: [RecoveryLoss]
    /// The FTS5 tables whose index was made again from the rows kept, as their tables lost pages.
    public var rebuiltIndexes: [String]
    /// The WAL frame (1-based) that fails its salts or checksum with a commit after it: the commits
    /// from it on are not recovered, as SQLite drops them too.
    public var droppedWALFrame: Int?
    /// Whether the -wal beside the source was set aside unread: it held frames and no frame
    /// passed its HMAC under the key that read the file (another database's -wal).
    public var walSetAside = false
    /// Entries of index pages below a lost page that were left out of `lost_and_found`: their
    /// tables kept their rows, with the same values, and every index is made again.
    public var indexEntriesLeftOut = 0
    /// The table the recovery put the rows it could not place in: `lost_and_found`, or
    /// `lost_and_found_N` when the source had a table of that name; nil when it made none.
    public var lostAndFoundTable: String?

    public init(
        pages: Int, lostPages: [Int], tables: [TableRowCount], losses: [RecoveryLoss], rebuiltIndexes: [String] = [], droppedWALFrame: Int? = nil
    ) {
        self.pages = pages
        self.lostPages = lostPages
        self.tables = tables
        self.losses = losses
        self.rebuiltIndexes = rebuiltIndexes
        self.droppedWALFrame = droppedWALFrame
    }

    /// Rows kept whose value is cut short, in every table.
    public var rowsCutShort: Int { losses.reduce(0) { $0 + $1.rowsCutShort } }
}
