extension PageSource {
    /// The pages of the -wal's current frames that fail their HMAC under `codec`, in page
    /// order, and how many frames' pages were checked (a frame cut short is not).
    func walPagesFailingHMAC(_ codec: PageCodec) throws -> (failing: [Int], checked: Int) {
        var failing: [Int] = [], checked = 0
        for pgno in walPageNumbers.sorted() {
            guard let page = page(pgno), page.count == codec.pageSize else { continue }
            checked += 1
            failing += try page.withUnsafeBytes { try codec.damagedPages(in: $0, first: pgno, count: 1) }
        }
        return (failing, checked)
    }

    /// Whether one of `pages` passes its HMAC under `codec`, which only the right key and
    /// settings can make it do. A page of zeros, which SQLCipher lets through under any key,
    /// proves nothing.
    func anyPagePassesHMAC(_ codec: PageCodec, among pages: some Sequence<Int>) throws -> Bool {
        for pgno in pages {
            guard let page = page(pgno), page.count == codec.pageSize, page.contains(where: { $0 != 0 }) else { continue }
            if try page.withUnsafeBytes({ try codec.damagedPages(in: $0, first: pgno, count: 1) }).isEmpty { return true }
        }
        return false
    }
}
