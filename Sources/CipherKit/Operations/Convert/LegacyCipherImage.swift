import CCipherProvider
import FoundationEssentials

/// A SQLCipher 1 to 3 file under a `PRAGMA cipher` other than AES-256-CBC
/// (`LegacyCipherScheme`) decrypted into memory: the plaintext database a conversion reads,
/// never on any disk. Every page's HMAC is checked (SQLCipher 1 has none: page 1's decrypted
/// header is checked instead).
enum LegacyCipherImage {
    /// The page sizes SQLCipher 3 writes, in the order a file is tried with them.
    static let pageSizes = [1024, 4096, 2048, 8192, 16384, 32768, 65536, 512]

    /// The plaintext pages, page 1 beginning with "SQLite format 3\0".
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` when page 1 fails (a wrong key or scheme),
    ///   `damagedPages` when a later one fails its HMAC or the file ends inside a page.
    static func read(_ path: String, key: KeyMaterial, scheme: LegacyCipherScheme) throws -> [UInt8] {
        let pageSize = scheme.pageSize
        let raw = try SourceFile.read(path, pageSize: pageSize, salted: true)
        let count = raw.count / pageSize
        var plain = [UInt8](repeating: 0, count: count * pageSize)
        let failed = try decrypt(raw[0..<count * pageSize], key: key, scheme: scheme, into: &plain)
        guard failed == 0, raw.count % pageSize == 0 else {
            SecureBytes.wipe(&plain)
            if failed == 1 { throw CipherKitError.cannotDecrypt(path: path, failure: .wrongKeyForScheme(scheme: scheme.summary)) }
            let page = failed > 0 ? DamagedPage(page: Int(failed), reason: "fails its HMAC") : DamagedPage(page: count + 1, reason: "is cut short")
            throw CipherKitError.damagedPages(path: path, pages: [page])
        }
        return plain
    }

    /// The scheme the passphrase opens the file at `file.path` with, when it looks random:
    /// each cipher with SQLCipher 3's defaults, then 2's (the HMAC's page numbers little-, then
    /// big-endian), then 1's, page 1's HMAC checked (its header without HMAC), at each page
    /// size; a page 1 that decrypts to its header but fails its HMAC is tried under the other
    /// 255 HMAC salt masks. Not in FIPS mode, and not for a raw key.
    static func scheme(of file: DatabaseFile, key: KeyMaterial) -> LegacyCipherScheme? {
        guard case .opens(let scheme)? = pageOne(of: file, key: key) else { return nil }
        return scheme
    }

    /// What page 1 shows, tried as `scheme(of:key:)` tries the schemes: the first under which
    /// it holds, else the first under which it decrypts to its header; nil when neither.
    static func pageOne(of file: DatabaseFile, key: KeyMaterial) -> PageOne? {
        guard CryptoMode.current != .fips, key.kind == .passphrase, file.kind == .opaque,
              let head = FileHead.bytes(of: file.path), head.count >= 512 else { return nil }
        var damaged: PageOne?
        for (iterations, hmac, bigEndian) in [(64_000, true, false), (4_000, true, false), (4_000, true, true), (4_000, false, false)] {
            for cipher in LegacyCipherScheme.Cipher.allCases {
                let scheme = LegacyCipherScheme(cipher: cipher, kdfIterations: iterations, hmac: hmac, pageSize: 0, bigEndianPageNumbers: bigEndian)
                guard var keys = try? keys(key, salt: Array(head[0..<16]), scheme: scheme) else { continue }
                defer { SecureBytes.wipe(&keys.page); SecureBytes.wipe(&keys.hmac) }
                let found = fit(head, keys: keys, scheme: scheme)
                if case .opens? = found { return found }
                damaged = damaged ?? found
            }
        }
        return damaged
    }

    /// What page 1 shows under a scheme: it holds, or it decrypts to its header while no HMAC
    /// salt mask makes its HMAC hold: damage after the header's first block when page 2
    /// holds (or there is none), else an HMAC key made otherwise (a `fast_kdf_iter` other than 2).
    enum PageOne: Equatable {
        case opens(LegacyCipherScheme)
        case damaged(LegacyCipherScheme)
        case hmacKeyUnknown(LegacyCipherScheme)
    }

    /// The failure of a page 1 that decrypts under `scheme` while no page's HMAC holds.
    static func unknownHMACKey(under scheme: LegacyCipherScheme, path: String) -> CipherKitError {
        .cannotDecrypt(path: path, failure: .otherCipherHMACKeyUnknown(scheme: scheme.summary))
    }

    /// Page 1 as damage: under `scheme` its header decrypts and its HMAC fails.
    static func damagedPageOne(under scheme: LegacyCipherScheme, path: String) -> ForeignDamage {
        ForeignDamage(path: path, pages: [DamagedPage(page: 1, reason: "fails its HMAC, though its header decrypts", owner: "the schema")], scheme: scheme.summary)
    }

    /// `scheme` with the page size (and HMAC salt mask) at which page 1 holds, or decrypts
    /// to its header with its HMAC failing; nil when neither happens at any page size.
    private static func fit(_ head: [UInt8], keys: Keys, scheme: LegacyCipherScheme) -> PageOne? {
        for size in pageSizes where size <= head.count {
            var sized = scheme
            sized.pageSize = size
            if holds(head[0..<size], keys: keys, scheme: sized) { return .opens(sized) }
            if sized.hmac, headerDecrypts(head[0..<size], keys: keys, scheme: sized) {
                if let found = masked(head[0..<size], keys: keys, scheme: sized) { return .opens(found) }
                return pageTwoHolds(head, keys: keys, scheme: sized) != false ? .damaged(sized) : .hmacKeyUnknown(sized)
            }
        }
        return nil
    }

    /// Page 1 under each cipher (and either order of the HMAC's page numbers), with the raw
    /// keys a format search derived from the passphrase under SQLCipher 1 to 3's KDF
    /// (PBKDF2-HMAC-SHA1): each cipher's key is a prefix of such a key, so nothing is derived
    /// again and a wrong key costs microseconds. As `pageOne(of:key:)` answers.
    static func pageOne(of file: DatabaseFile, derived: [(KeyMaterial, CipherSettings)]) -> PageOne? {
        guard CryptoMode.current != .fips, file.kind == .opaque,
              let head = FileHead.bytes(of: file.path), head.count >= 512 else { return nil }
        var seen: [LegacyCipherScheme] = [], damaged: PageOne?
        for (key, settings) in derived where key.kind != .passphrase {
            guard let base = scheme(derivedUnder: settings), !seen.contains(base) else { continue }
            seen.append(base)
            var bytes = key.rawKeyBytes().withUnsafeBytes { Array($0) }
            defer { SecureBytes.wipe(&bytes) }
            for scheme in variants(of: base) {
                var page = Array(bytes.prefix(scheme.cipher.keyLength)) + [UInt8](repeating: 0, count: 32 - scheme.cipher.keyLength)
                guard var hmac = try? hmacKey(page, salt: Array(head[0..<16]), scheme: scheme) else { continue }
                defer { SecureBytes.wipe(&page); SecureBytes.wipe(&hmac) }
                let found = fit(head, keys: (page, hmac), scheme: scheme)
                if case .opens? = found { return found }
                damaged = damaged ?? found
            }
        }
        return damaged
    }

    /// `base` under each cipher, and with an HMAC, with its page numbers in either order.
    private static func variants(of base: LegacyCipherScheme) -> [LegacyCipherScheme] {
        let orders = base.hmac ? [base.bigEndianPageNumbers, !base.bigEndianPageNumbers] : [base.bigEndianPageNumbers]
        return orders.flatMap { bigEndian in
            LegacyCipherScheme.Cipher.allCases.map { cipher in
                var scheme = base
                scheme.cipher = cipher
                scheme.bigEndianPageNumbers = bigEndian
                return scheme
            }
        }
    }

    /// The scheme, cipher and page size aside, whose keys `settings` derive: SQLCipher 1 to
    /// 3's KDF and HMAC; nil for any other settings.
    private static func scheme(derivedUnder settings: CipherSettings) -> LegacyCipherScheme? {
        let effective = settings.effective
        let hmac = effective.useHMAC ?? true
        guard effective.kdfAlgorithm == .pbkdf2SHA1, !hmac || effective.hmacAlgorithm == .sha1, (effective.plaintextHeaderSize ?? 0) == 0,
              let iterations = effective.kdfIterations else { return nil }
        return LegacyCipherScheme(
            cipher: .aes256cfb, kdfIterations: iterations, hmac: hmac, pageSize: 0,
            bigEndianPageNumbers: effective.hmacPageNumber == .bigEndian, hmacSaltMask: effective.hmacSaltMask ?? 0x3a)
    }

    private static func holds(_ page1: ArraySlice<UInt8>, keys: Keys, scheme: LegacyCipherScheme) -> Bool {
        var plain = [UInt8](repeating: 0, count: scheme.pageSize)
        defer { SecureBytes.wipe(&plain) }
        return run(page1, keys: keys, scheme: scheme, into: &plain) == 0
    }

    /// `scheme` under the HMAC salt mask page 1 passes its HMAC with; nil when none does.
    private static func masked(_ page1: ArraySlice<UInt8>, keys: Keys, scheme: LegacyCipherScheme) -> LegacyCipherScheme? {
        for mask in UInt8.min...UInt8.max where mask != scheme.hmacSaltMask {
            var candidate = scheme
            candidate.hmacSaltMask = mask
            guard var hmac = try? hmacKey(keys.page, salt: Array(page1.prefix(16)), scheme: candidate) else { return nil }
            defer { SecureBytes.wipe(&hmac) }
            if holds(page1, keys: Keys(page: keys.page, hmac: hmac), scheme: candidate) { return candidate }
        }
        return nil
    }

    /// Decrypts whole pages from page 1 on; returns `legacypage_decrypt_run`'s answer.
    private static func decrypt(_ pages: ArraySlice<UInt8>, key: KeyMaterial, scheme: LegacyCipherScheme, into out: inout [UInt8]) throws -> Int64 {
        var keys = try keys(key, salt: Array(pages.prefix(16)), scheme: scheme)
        defer { SecureBytes.wipe(&keys.page); SecureBytes.wipe(&keys.hmac) }
        let result = run(pages, keys: keys, scheme: scheme, into: &out)
        guard result >= 0 else { throw CipherKitError.crypto(operation: "\(scheme.cipher.rawValue) decryption") }
        return result
    }

    typealias Keys = (page: [UInt8], hmac: [UInt8])

    /// The page key and the HMAC key under the scheme's mask; the caller wipes them.
    private static func keys(_ key: KeyMaterial, salt: [UInt8], scheme: LegacyCipherScheme) throws -> Keys {
        var both = [UInt8](repeating: 0, count: 64)
        defer { SecureBytes.wipe(&both) }
        let made = key.codecBytes.withUnsafeBytes { passphrase in
            legacypage_keys(scheme.cipher.code, passphrase.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(passphrase.count), salt, Int32(scheme.kdfIterations), &both)
        }
        guard made > 0 else { throw CipherKitError.crypto(operation: "\(scheme.cipher.rawValue) key") }
        let page = Array(both[0..<32])
        return (page, scheme.hmacSaltMask == 0x3a ? Array(both[32..<64]) : try hmacKey(page, salt: salt, scheme: scheme))
    }

    /// The HMAC key under the scheme's mask; the caller wipes it.
    private static func hmacKey(_ page: [UInt8], salt: [UInt8], scheme: LegacyCipherScheme) throws -> [UInt8] {
        var hmac = [UInt8](repeating: 0, count: 32)
        guard legacypage_hmac_key(scheme.cipher.code, page, salt, Int32(scheme.hmacSaltMask), &hmac) > 0 else {
            throw CipherKitError.crypto(operation: "\(scheme.cipher.rawValue) HMAC key")
        }
        return hmac
    }

    private static func run(_ pages: ArraySlice<UInt8>, keys: Keys, scheme: LegacyCipherScheme, into out: inout [UInt8]) -> Int64 {
        withCodec(keys: keys, scheme: scheme) { codec in
            pages.withUnsafeBytes { input in
                out.withUnsafeMutableBytes { output in
                    legacypage_decrypt_run(
                        &codec, input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(pages.count / scheme.pageSize),
                        output.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
    }

    /// Whether page 2 passes its HMAC (page 1's failure is then its own); nil when the head
    /// holds no page 2, and page 1 alone cannot tell damage from another HMAC key.
    /// Every mask is tried, as for page 1 (`masked`), in either order of the page number (a
    /// page 1 that fails tells neither).
    private static func pageTwoHolds(_ head: [UInt8], keys: Keys, scheme: LegacyCipherScheme) -> Bool? {
        guard head.count >= 2 * scheme.pageSize else { return nil }
        let page2 = head[scheme.pageSize..<(2 * scheme.pageSize)]
        return [false, true].flatMap { order in (UInt8.min...UInt8.max).map { (order, $0) } }.contains { order, mask in
            var candidate = scheme
            candidate.hmacSaltMask = mask
            candidate.bigEndianPageNumbers = order
            guard var hmac = try? hmacKey(keys.page, salt: Array(head.prefix(16)), scheme: candidate) else { return false }
            defer { SecureBytes.wipe(&hmac) }
            return withCodec(keys: Keys(page: keys.page, hmac: hmac), scheme: candidate) { codec in
                page2.withUnsafeBytes { legacypage_mac_holds(&codec, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), 2) == 1 }
            }
        }
    }

    /// Whether page 1 decrypts to its header, its HMAC unchecked.
    private static func headerDecrypts(_ page1: ArraySlice<UInt8>, keys: Keys, scheme: LegacyCipherScheme) -> Bool {
        withCodec(keys: keys, scheme: scheme) { codec in
            page1.withUnsafeBytes { legacypage_header_decrypts(&codec, $0.baseAddress?.assumingMemoryBound(to: UInt8.self)) == 1 }
        }
    }

    private static func withCodec<Result>(keys: Keys, scheme: LegacyCipherScheme, _ body: (inout legacypage_codec) -> Result) -> Result {
        keys.page.withUnsafeBufferPointer { pageKey in
            keys.hmac.withUnsafeBufferPointer { hmacKey in
                var codec = legacypage_codec(
                    cipher: scheme.cipher.code, key: pageKey.baseAddress, hmac_key: hmacKey.baseAddress, use_hmac: scheme.hmac ? 1 : 0,
                    page_size: Int32(scheme.pageSize), big_endian_pgno: scheme.bigEndianPageNumbers ? 1 : 0)
                return body(&codec)
            }
        }
    }
}
