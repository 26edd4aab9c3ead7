/// What one table, index or list lost in a recovery, as its b-tree shows it.
public struct RecoveryLoss: Equatable, Sendable {
    /// `table NAME`, `index NAME`, `the schema`, `the freelist`, `the pointer map`,
    /// `lost_and_found` (pages no tree of the schema reaches); nil when nothing that was read
    /// points at the page (it was below another lost page).
    public var owner: String?
    /// Its lost pages.
    public var pages: [Int]
    /// The rowids whose rows were on the lost pages of a rowid table: every row in those
    /// ranges that the table had is missing from it (in `lost_and_found` when a lost interior
    /// page's leaves survive).
    public var rowids: [RowidRange]
    /// Rows kept whose overflow chain lost a page: a value of theirs is cut short or zeroed.
    public var rowsCutShort: Int

    public init(owner: String?, pages: [Int] = [], rowids: [RowidRange] = [], rowsCutShort: Int = 0) {
        self.owner = owner
        self.pages = pages
        self.rowids = rowids
        self.rowsCutShort = rowsCutShort
    }

    /// The table's name when the owner is a table.
    public var table: String? {
        guard let owner, owner.hasPrefix("table ") else { return owner == PageOwners.orphan ? owner : nil }
        return String(owner.dropFirst(6))
    }
}
