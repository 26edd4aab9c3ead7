/// The rowids a subtree of a rowid table holds, as its parent page bounds them: those above
/// `above` and up to `upTo` (nil: no bound on that side; both nil: every rowid).
/// See https://www.sqlite.org/fileformat2.html#b_tree_pages
public struct RowidRange: Equatable, Sendable {
    public var above: Int64?
    public var upTo: Int64?

    public init(above: Int64?, upTo: Int64?) {
        self.above = above
        self.upTo = upTo
    }

    /// The first rowid of the range, nil when it is unbounded below.
    public var first: Int64? { above.map { $0 == .max ? $0 : $0 + 1 } }

    public func contains(_ rowid: Int64) -> Bool {
        (above.map { rowid > $0 } ?? true) && (upTo.map { rowid <= $0 } ?? true)
    }
}
