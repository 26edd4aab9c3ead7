import CCipherProvider

/// The pages an HMAC pass has proven so far, one byte a page, which a check running at the
/// same time trusts page by page (`cipherprovider_trust_proven_pages`): a page read before the
/// pass reached it has its HMAC computed and checked by SQLCipher as ever.
///
/// Only for a database held unchanged (one read transaction) from before the pass until after
/// the check. A thread stops trusting (`stopTrusting`) before the map is freed.
final class ProvenPageMap: @unchecked Sendable {
    private let map: UnsafeMutablePointer<UInt8>
    /// The pages the map can mark, 1 to `pages`.
    let pages: Int
    private let bigEndianPageNumber: Bool

    init(pages: Int, codec: PageCodec) {
        self.pages = pages
        bigEndianPageNumber = codec.settings.hmacPageNumber == .bigEndian
        map = UnsafeMutablePointer<UInt8>.allocate(capacity: pages + 1)
        map.initialize(repeating: 0, count: pages + 1)
    }

    deinit { map.deallocate() }

    /// Marks pages `first` to `first + count - 1` proven, except those in `except`.
    func mark(first: Int, count: Int, except: Set<Int>) {
        for pgno in first..<first + count where pgno >= 1 && pgno <= pages && !except.contains(pgno) {
            cipherprovider_mark_proven(map, UInt32(pgno))
        }
    }

    /// Trusts the marked pages on the calling thread.
    func trustOnThisThread() {
        cipherprovider_trust_proven_pages(map, UInt32(pages), bigEndianPageNumber ? 1 : 0)
    }

    /// Stops trusting them on the calling thread.
    static func stopTrusting() {
        cipherprovider_trust_proven_pages(nil, 0, 0)
    }
}
