import CCipherProvider
import TestSupport
import XCTest

/// Page HMACs computed eight at a time in AVX-512 lanes (SHA512x8.c) against OpenSSL's one
/// page at a time, over a seeded sweep of page sizes, reserves, page-number byte orders,
/// first page numbers and run lengths (replay with CIPHERCTL_LANES_SEED; widen with
/// CIPHERCTL_LANES_CASES).
final class PageMACLanesTests: XCTestCase {
    private struct Layout {
        let pageSize: Int
        let reserve: Int
        let bigEndian: Bool
        let first: UInt32
        let count: Int
    }

    override func tearDown() {
        _ = cipherpage_use_lanes(1)
        super.tearDown()
    }

    private func requireLanes() throws {
        guard cipherpage_use_lanes(1) == 1 else { throw XCTSkip("this CPU has no AVX-512; pages go through OpenSSL only") }
    }

    private func randomLayout(_ generator: inout SeededGenerator) -> Layout {
        let pageSize = 512 << Int.random(in: 0...7, using: &generator)
        // AES-CBC needs whole blocks, so SQLCipher rounds the reserve up to 16 bytes.
        let reserve = 80 + 16 * Int.random(in: 0...min(10, (pageSize / 4 - 80) / 16), using: &generator)
        let first: UInt32 = [1, 2, UInt32.random(in: 3...UInt32.max - 64, using: &generator)][Int.random(in: 0...2, using: &generator)]
        return Layout(pageSize: pageSize, reserve: reserve, bigEndian: Bool.random(using: &generator), first: first,
                      count: Int.random(in: 0...40, using: &generator))
    }

    private func randomBytes(_ count: Int, _ generator: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Calls `body` with a codec for `layout` with HMAC-SHA512 and the given keys.
    private func withCodec<R>(_ layout: Layout, key: [UInt8], hmacKey: [UInt8], salt: [UInt8], _ body: (inout cipherpage_codec) -> R) -> R {
        key.withUnsafeBufferPointer { key in
            hmacKey.withUnsafeBufferPointer { hmacKey in
                salt.withUnsafeBufferPointer { salt in
                    var codec = cipherpage_codec(
                        key: key.baseAddress, hmac_key: hmacKey.baseAddress, page_size: Int32(layout.pageSize), reserve: Int32(layout.reserve),
                        hmac_digest: 512, page1_offset: 16, big_endian_pgno: layout.bigEndian ? 1 : 0, salt: salt.baseAddress)
                    return body(&codec)
                }
            }
        }
    }

    private func macs(_ pages: [UInt8], _ layout: Layout, hmacKey: [UInt8], lanes: Int32) -> [UInt8] {
        _ = cipherpage_use_lanes(lanes)
        var out = [UInt8](repeating: 0, count: 64 * max(layout.count, 1))
        let status = withCodec(layout, key: [UInt8](repeating: 1, count: 32), hmacKey: hmacKey, salt: [UInt8](repeating: 2, count: 16)) { codec in
            cipherpage_page_macs(&codec, pages, layout.first, Int32(layout.count), &out)
        }
        XCTAssertEqual(status, 1)
        return out
    }

    func testEightLaneHMACsEqualOpenSSLsForEveryPageSizeReserveByteOrderAndPageNumber() throws {
        try requireLanes()
        var (generator, seed) = SeededGenerator.forSweep("page HMAC lanes", variable: "CIPHERCTL_LANES_SEED")
        for run in 0..<sweepCases("CIPHERCTL_LANES_CASES", quick: 60) {
            let layout = randomLayout(&generator)
            let pages = randomBytes(layout.pageSize * layout.count, &generator)
            let hmacKey = randomBytes(32, &generator)
            let inLanes = macs(pages, layout, hmacKey: hmacKey, lanes: 1)
            let oneByOne = macs(pages, layout, hmacKey: hmacKey, lanes: 0)
            XCTAssertEqual(inLanes, oneByOne, "seed \(seed) run \(run): \(layout)")
        }
    }

    /// Valid pages (encrypted with their HMACs one at a time), then damage: a flipped byte
    /// that the HMAC covers in some pages, and some pages zeroed whole (which SQLCipher lets pass).
    func testTheCheckFlagsExactlyTheDamagedPagesWithAndWithoutLanes() throws {
        try requireLanes()
        var (generator, seed) = SeededGenerator.forSweep("page check lanes", variable: "CIPHERCTL_LANES_SEED")
        for run in 0..<sweepCases("CIPHERCTL_LANES_CASES", quick: 30) {
            let layout = randomLayout(&generator)
            let key = randomBytes(32, &generator), hmacKey = randomBytes(32, &generator), salt = randomBytes(16, &generator)
            var pages = randomBytes(layout.pageSize * layout.count, &generator)
            if layout.first == 1, layout.count > 0 { pages.replaceSubrange(0..<16, with: Array("SQLite format 3\0".utf8)) }
            var written = [UInt8](repeating: 0, count: pages.count), bad = [UInt8](repeating: 0, count: max(layout.count, 1))
            _ = cipherpage_use_lanes(0)
            let encrypted = withCodec(layout, key: key, hmacKey: hmacKey, salt: salt) { codec in
                cipherpage_encrypt_run(&codec, pages, layout.first, Int32(layout.count), &written, &bad)
            }
            XCTAssertEqual(encrypted, 0, "seed \(seed) run \(run)")
            pages = written
            var damaged = Set<Int>()
            for index in 0..<layout.count where Int.random(in: 0..<4, using: &generator) == 0 {
                let start = index * layout.pageSize
                if Int.random(in: 0..<5, using: &generator) == 0 {
                    for at in start..<start + layout.pageSize { pages[at] = 0 }
                } else {
                    // A byte the HMAC covers: the ciphertext, the IV or the HMAC (not the reserve's random fill).
                    let covered = (layout.first + UInt32(index) == 1 ? 16 : 0)..<layout.pageSize - layout.reserve + 80
                    pages[start + Int.random(in: covered, using: &generator)] ^= 0x20
                    damaged.insert(index)
                }
            }
            for lanes: Int32 in [1, 0] {
                _ = cipherpage_use_lanes(lanes)
                let found = withCodec(layout, key: key, hmacKey: hmacKey, salt: salt) { codec in
                    cipherpage_check(&codec, pages, layout.first, Int32(layout.count), &bad)
                }
                let flagged = Set((0..<layout.count).filter { bad[$0] != 0 })
                XCTAssertEqual(flagged, damaged, "seed \(seed) run \(run) lanes \(lanes): \(layout)")
                XCTAssertEqual(Int(found), damaged.count)
            }
        }
    }
}
