/// A page that failed its check: which page, where its current version is, why, and what
/// it belongs to.
public struct DamagedPage: Equatable, Sendable {
    /// The page number (the first of a run of missing pages); 0 when the check that failed
    /// names no page (SQLite's quick_check on a format without HMACs).
    public var page: Int
    /// The last page of a run of missing pages (a truncated file); nil for one page.
    public var lastPage: Int?
    /// Whether the page's current version is a frame of the WAL.
    public var inWAL: Bool
    /// What is wrong: `fails its HMAC`, `is cut short`, `is missing`, …
    public var reason: String
    /// What the page belongs to (`table customers`, `index customers_name`, `the freelist`,
    /// `the schema`), when a walk of the b-trees found it.
    public var owner: String?

    public init(page: Int, lastPage: Int? = nil, inWAL: Bool = false, reason: String, owner: String? = nil) {
        self.page = page
        self.lastPage = lastPage
        self.inWAL = inWAL
        self.reason = reason
        self.owner = owner
    }

    /// One line: `page 5 (index customers_name): fails its HMAC`.
    public var summary: String {
        guard page > 0 else { return reason }
        let pages = lastPage.map { "pages \(page) to \($0)" } ?? "page \(page)"
        let place = inWAL ? " in the WAL" : ""
        let belongs = owner.map { " (\($0))" } ?? ""
        return pages + place + belongs + ": " + reason
    }
}
