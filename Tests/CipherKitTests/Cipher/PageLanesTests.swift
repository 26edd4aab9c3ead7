import CCipherProvider
import TestSupport
import XCTest

/// The page engine's lanes against OpenSSL's one page at a time: HMAC-SHA512 of eight pages
/// at once (SHA512x8.c) and AES-256-CBC encryption of sixteen (AESCBCx16.c), over a seeded
/// sweep of page sizes, reserves, page-number byte orders, first page numbers and run
/// lengths (replay with CIPHERCTL_LANES_SEED; widen with CIPHERCTL_LANES_CASES).
final class PageLanesTests: XCTestCase {
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

    private func requireAESLanes() throws {
        guard cipherpage_use_lanes(1) == 1, cipherpage_aes_lanes_available() == 1 else {
            throw XCTSkip("this CPU has no VAES; pages are encrypted by OpenSSL only")
        }
    }

    private func roundKeys(_ key: [UInt8]) -> [UInt8] {
        var keys = [UInt8](repeating: 0, count: 15 * 16)
        keys.withUnsafeMutableBytes { buffer in
            cipherpage_aes256_round_keys(key, buffer.baseAddress!.assumingMemoryBound(to: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                                                                                         UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8).self))
        }
        return keys
    }

    /// Sixteen messages of `length` bytes encrypted together; returns each ciphertext.
    private func encryptInLanes(_ plain: [[UInt8]], key: [UInt8], ivs: [[UInt8]], length: Int) -> [[UInt8]] {
        var out = [[UInt8]](repeating: [UInt8](repeating: 0, count: length), count: 16)
        let keys = roundKeys(key)
        let inputs = plain.map { bytes -> UnsafeMutablePointer<UInt8> in
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(length, 1))
            copy.initialize(from: bytes, count: length)
            return copy
        }
        let vectors = ivs.map { iv -> UnsafeMutablePointer<UInt8> in
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: 16)
            copy.initialize(from: iv, count: 16)
            return copy
        }
        let outputs = (0..<16).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: max(length, 1)) }
        defer { (inputs + vectors + outputs).forEach { $0.deallocate() } }
        var inPointers = inputs.map { Optional(UnsafePointer($0)) }, ivPointers = vectors.map { Optional(UnsafePointer($0)) }
        var outPointers = outputs.map { Optional($0) }
        keys.withUnsafeBytes { buffer in
            cipherpage_aes256cbc_encrypt_x16(buffer.baseAddress!.assumingMemoryBound(to: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                                                                                           UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8).self),
                                             &inPointers, &outPointers, &ivPointers, length)
        }
        for lane in 0..<16 { out[lane] = Array(UnsafeBufferPointer(start: outputs[lane], count: length)) }
        return out
    }

    private func randomLayout(_ generator: inout SeededGenerator, maxCount: Int = 40) -> Layout {
        let pageSize = 512 << Int.random(in: 0...7, using: &generator)
        // AES-CBC needs whole blocks, so SQLCipher rounds the reserve up to 16 bytes.
        let reserve = 80 + 16 * Int.random(in: 0...min(10, (pageSize / 4 - 80) / 16), using: &generator)
        let first: UInt32 = [1, 2, UInt32.random(in: 3...UInt32.max - 64, using: &generator)][Int.random(in: 0...2, using: &generator)]
        return Layout(pageSize: pageSize, reserve: reserve, bigEndian: Bool.random(using: &generator), first: first,
                      count: Int.random(in: 0...maxCount, using: &generator))
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
    /// that the HMAC covers in some pages, and some pages zeroed whole (damage, as cipher_integrity_check says).
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
                    // Only SQLite's lock-byte page, which no one writes, may be all zeros.
                    if Int(layout.first) + index != 0x4000_0000 / layout.pageSize + 1 { damaged.insert(index) }
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

    func testSixteenLaneAESGivesFIPS197sAnswer() throws {
        try requireAESLanes()
        // FIPS 197, appendix C.3: AES-256 with key 00..1f on 00112233..ff (one CBC block with a zero IV).
        let key = (0..<32).map { UInt8($0) }
        let block = (0..<16).map { UInt8($0 * 0x11) }
        let out = encryptInLanes([[UInt8]](repeating: block, count: 16), key: key, ivs: [[UInt8]](repeating: [UInt8](repeating: 0, count: 16), count: 16), length: 16)
        let expected: [UInt8] = [0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf, 0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49, 0x60, 0x89]
        XCTAssertEqual(out, [[UInt8]](repeating: expected, count: 16))
    }

    /// Each lane's ciphertext, with its IV as a page's reserve, must decrypt with OpenSSL
    /// (cipherpage_decrypt) to its own plaintext, for message lengths up to a 64 KB page.
    func testSixteenLaneAESCBCDecryptsWithOpenSSLForEveryLength() throws {
        try requireAESLanes()
        var (generator, seed) = SeededGenerator.forSweep("AES lanes", variable: "CIPHERCTL_LANES_SEED")
        for run in 0..<sweepCases("CIPHERCTL_LANES_CASES", quick: 40) {
            let length = 16 * Int.random(in: 1...4095, using: &generator)
            let key = randomBytes(32, &generator)
            let plain = (0..<16).map { _ in randomBytes(length, &generator) }
            let ivs = (0..<16).map { _ in randomBytes(16, &generator) }
            let cipher = encryptInLanes(plain, key: key, ivs: ivs, length: length)
            let layout = Layout(pageSize: length + 16, reserve: 16, bigEndian: false, first: 2, count: 1)
            for lane in 0..<16 {
                var page = cipher[lane] + ivs[lane], back = [UInt8](repeating: 0, count: length + 16)
                let status = key.withUnsafeBufferPointer { key in
                    var codec = cipherpage_codec(key: key.baseAddress, hmac_key: nil, page_size: Int32(layout.pageSize), reserve: 16, hmac_digest: 0,
                                                 page1_offset: 16, big_endian_pgno: 0, salt: nil)
                    return cipherpage_decrypt(&codec, &page, 2, &back)
                }
                XCTAssertEqual(status, 1)
                XCTAssertEqual(Array(back.prefix(length)), plain[lane], "seed \(seed) run \(run) lane \(lane): length \(length)")
            }
        }
    }

    /// Runs written with each combination of the lanes (HMACs in lanes or not, AES in lanes
    /// or not: an AVX-512 CPU without VAES runs the second; an encrypting run, then a
    /// conversion to another key) must read back one page at a time through OpenSSL: every
    /// HMAC passes and every page decrypts to its source. Lanes the CPU lacks fall back to
    /// OpenSSL, which is then what the combination tests.
    func testRunsWrittenWithEachCombinationOfLanesReadBackPageByPageThroughOpenSSL() {
        var (generator, seed) = SeededGenerator.forSweep("runs in lanes", variable: "CIPHERCTL_LANES_SEED")
        defer { _ = cipherpage_use_lanes(1) }
        for run in 0..<sweepCases("CIPHERCTL_LANES_CASES", quick: 20) {
            for (hmacLanes, aesLanes): (Int32, Int32) in [(1, 1), (1, 0), (0, 1), (0, 0)] {
                readBack(run: run, seed: seed, hmacLanes: hmacLanes, aesLanes: aesLanes, &generator)
            }
        }
    }

    private func readBack(run: Int, seed: UInt64, hmacLanes: Int32, aesLanes: Int32, _ generator: inout SeededGenerator) {
        let label = "seed \(seed) run \(run) lanes hmac \(hmacLanes) aes \(aesLanes)"
        // Up to 70 pages: several groups of sixteen, with and without page 1, and a remainder.
        let layout = randomLayout(&generator, maxCount: 70)
        let keys = (0..<2).map { _ in (randomBytes(32, &generator), randomBytes(32, &generator)) }
        let salt = randomBytes(16, &generator)
        var plain = randomBytes(layout.pageSize * layout.count, &generator)
        if layout.first == 1, layout.count > 0 { plain.replaceSubrange(0..<16, with: Array("SQLite format 3\0".utf8)) }
        var first = [UInt8](repeating: 0, count: plain.count), second = first, bad = [UInt8](repeating: 0, count: max(layout.count, 1))
        _ = cipherpage_use_hmac_lanes(hmacLanes)
        _ = cipherpage_use_aes_lanes(aesLanes)
        let encrypted = withCodec(layout, key: keys[0].0, hmacKey: keys[0].1, salt: salt) { codec in
            cipherpage_encrypt_run(&codec, plain, layout.first, Int32(layout.count), &first, &bad)
        }
        let converted = withCodec(layout, key: keys[0].0, hmacKey: keys[0].1, salt: salt) { from in
            withCodec(layout, key: keys[1].0, hmacKey: keys[1].1, salt: salt) { to in
                providerConvert(&from, &to, first, first: layout.first, count: Int32(layout.count), into: &second, bad: &bad)
            }
        }
        XCTAssertEqual([encrypted, converted], [0, 0], "\(label): \(layout)")
        _ = cipherpage_use_lanes(0)
        for (pages, key) in [(first, keys[0]), (second, keys[1])] {
            let checked = withCodec(layout, key: key.0, hmacKey: key.1, salt: salt) { codec in
                cipherpage_check(&codec, pages, layout.first, Int32(layout.count), &bad)
            }
            XCTAssertEqual(checked, 0, "\(label): \(layout)")
            for index in 0..<layout.count {
                let range = index * layout.pageSize..<(index + 1) * layout.pageSize
                var back = [UInt8](repeating: 0, count: layout.pageSize)
                let status = withCodec(layout, key: key.0, hmacKey: key.1, salt: salt) { codec in
                    cipherpage_decrypt(&codec, Array(pages[range]), layout.first + UInt32(index), &back)
                }
                XCTAssertEqual(status, 1)
                let content = layout.pageSize - layout.reserve
                XCTAssertEqual(Array(back.prefix(content)), Array(plain[range].prefix(content)), "\(label) page \(index): \(layout)")
            }
        }
    }
}
