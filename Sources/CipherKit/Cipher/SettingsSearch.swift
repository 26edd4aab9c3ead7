import CCipherProvider
import Dispatch
import FoundationEssentials

/// Finds the settings a SQLCipher file was written with, from page 1 and the key alone: the
/// KDF algorithm and iteration count, the page size, the reserve (and so HMAC on or off and
/// which HMAC), for a file that none of the known formats opens.
///
/// PBKDF2's key for `c` iterations is the XOR of its first `c` blocks, so one pass up to the
/// largest count yields the key for every smaller count; each is tested by decrypting one AES
/// block of page 1 against SQLite's fixed header bytes (`cipherprovider_pbkdf2_search`). The
/// three KDF algorithms run on the cores there are (`threadGroups`) and the first to match
/// stops the others. A raw
/// key skips the KDF. In FIPS mode (`CryptoMode`) only raw keys are tested, through EVP; a
/// passphrase is not searched. What this returns is a candidate: the caller proves it with a real open
/// (the page HMAC, or the b-tree without one), and tries each HMAC setting the reserve allows.
enum SettingsSearch {
    /// The largest KDF iteration count searched.
    static let maxIterations = 1_000_000

    /// The raw key (with the file's salt) the search found, and the settings to try with it,
    /// most likely first.
    struct Found {
        let key: KeyMaterial
        let candidates: [CipherSettings]
    }

    /// Searches for the settings of a file whose first bytes are `page1` (at least 512; the
    /// salt first). Nil when nothing matches: a wrong key, or settings outside the search.
    ///
    /// - Throws: `CipherKitError.crypto` when OpenSSL fails.
    static func search(_ key: KeyMaterial, page1: [UInt8]) throws -> Found? {
        try search([key], page1: page1)?.found
    }

    /// Searches with several keys in one pass over the cores (`threadPlans(cores:keys:)`): the
    /// first key's chains run as they would alone, and the next key's fill each thread after
    /// them, so two keys cost about one search and a half on two cores rather than two searches
    /// one after the other. The first match stops every chain; its key's index in `keys` comes
    /// with what it found. Nil when no key matches.
    ///
    /// - Throws: `CipherKitError.crypto` when OpenSSL fails.
    static func search(_ keys: [KeyMaterial], page1: [UInt8]) throws -> (index: Int, found: Found)? {
        guard page1.count >= 512 else { return nil }
        let salt = Array(page1[0..<16])
        for (index, key) in keys.enumerated() where key.kind != .passphrase {
            guard let match = try blockMatch(key, page1: page1) else { continue }
            let raw = try KeyDerivation.rawKey(for: key, salt: salt, settings: CipherSettings())
            // A raw key says nothing of the KDF, whose algorithm also derives the HMAC key.
            let settings = KDFAlgorithm.allCases.reversed().flatMap { candidates(for: match, kdf: $0, iterations: nil) }
            return (index, Found(key: raw, candidates: settings))
        }
        let passphrases = keys.indices.filter { keys[$0].kind == .passphrase }
        // FIPS mode: the chains are PBKDF2 taken apart, which no EVP call does (FIPSPolicy).
        guard !passphrases.isEmpty, CryptoMode.current == .standard, let (which, found) = try searchPassphrases(passphrases.map { keys[$0] }, page1: page1, salt: salt) else {
            return nil
        }
        return (passphrases[which], found)
    }

    /// The settings a raw key already derived with `parameters` (by the known formats' tries)
    /// allows, when it passes the page-1 test: a file with a known format's KDF but another
    /// page size or HMAC is found without a search.
    static func check(_ raw: KeyMaterial, derivedWith parameters: KeyDerivation.Parameters, page1: [UInt8]) throws -> Found? {
        guard page1.count >= 512, raw.kind != .passphrase, let match = try blockMatch(raw, page1: page1) else { return nil }
        return Found(key: raw, candidates: candidates(for: match, kdf: parameters.algorithm, iterations: parameters.iterations))
    }

    /// Where a raw key passes the page-1 test; nil when it does not.
    private static func blockMatch(_ raw: KeyMaterial, page1: [UInt8]) throws -> cipherprovider_block_match? {
        var match = cipherprovider_block_match()
        let status = raw.rawKeyBytes().withUnsafeBytes { bytes in
            cipherprovider_block_matches(bytes.bindMemory(to: UInt8.self).baseAddress, page1, page1.count, &match)
        }
        guard status >= 0 else { throw CipherKitError.crypto(operation: "the settings search failed") }
        return status == 1 ? match : nil
    }

    /// The three KDF algorithms of each passphrase on threads of their own where there are
    /// cores for them; with two cores, SHA-512 (the slowest chain) has one and the two others
    /// share the other in lockstep, which beats three threads taking turns. The first match
    /// wins; its passphrase's index in `keys` comes with it.
    private static func searchPassphrases(_ keys: [KeyMaterial], page1: [UInt8], salt: [UInt8]) throws -> (Int, Found)? {
        let plans = threadPlans(cores: ProcessInfo.processInfo.activeProcessorCount, keys: keys.count)
        let results = SearchResults(count: plans.count)
        // Threads, not concurrentPerform: on two cores that runs a third group only after one
        // of the others has searched all the way, and the first match must stop all. A group
        // started after the stop returns at once (the search looks at the flag first).
        runOnThreads(plans.count) { index in
            for group in plans[index] {
                let (status, hit) = search(group, keys: keys, page1: page1, stop: results.stop)
                if status == 1 { results.stop.pointee = 1 }
                guard status == 0 else { return results.set(index, status: status, hit: hit) }
            }
        }
        if results.failed { throw CipherKitError.crypto(operation: "the settings search failed") }
        guard let hit = results.first else { return nil }
        var keyBytes = hit.key.withUnsafeBytes { Array($0) }
        defer { SecureBytes.wipe(&keyBytes) }
        var hexKey = Hex.encodeBytes(keyBytes)
        defer { SecureBytes.wipe(&hexKey) }
        var literal = Array("x'".utf8) + hexKey + Hex.encodeBytes(salt) + [UInt8(ascii: "'")]
        defer { SecureBytes.wipe(&literal) }
        let raw = try KeyMaterial.rawKey(hex: literal)
        return (hit.passphrase, Found(key: raw, candidates: candidates(for: hit.match, kdf: hit.algorithm, iterations: hit.iterations)))
    }

    /// The algorithms each search thread runs, slowest first.
    static func threadGroups(cores: Int) -> [[KDFAlgorithm]] {
        switch cores {
        case ...1: return [[.pbkdf2SHA512, .pbkdf2SHA256, .pbkdf2SHA1]]
        case 2: return [[.pbkdf2SHA512], [.pbkdf2SHA256, .pbkdf2SHA1]]
        default: return [[.pbkdf2SHA512], [.pbkdf2SHA256], [.pbkdf2SHA1]]
        }
    }

    /// What each search thread runs for `keys` passphrases: groups of chains (a passphrase's
    /// index, an algorithm) one after another, each group in lockstep. Each passphrase has the
    /// groups of `threadGroups(cores:)`, the first passphrase's first on each thread, so that
    /// it is searched as fast as alone; the next one's follow in the reverse order (on two
    /// cores SHA-256 and SHA1 after SHA-512, SHA-512 after SHA-256 and SHA1), so the threads
    /// end together.
    static func threadPlans(cores: Int, keys: Int) -> [[[SearchResults.Chain]]] {
        let groups = threadGroups(cores: cores)
        return groups.indices.map { thread in
            (0..<keys).map { key in
                let group = groups[key % 2 == 0 ? thread : groups.count - 1 - thread]
                return group.map { (key, $0) }
            }
        }
    }

    /// One thread's search: `chains` in lockstep over their passphrases and page 1.
    private static func search(
        _ chains: [SearchResults.Chain], keys: [KeyMaterial], page1: [UInt8], stop: UnsafeMutablePointer<Int32>
    ) -> (Int32, SearchResults.Hit?) {
        var iterations: Int32 = 0, which: Int32 = 0, match = cipherprovider_block_match()
        var derived = [UInt8](repeating: 0, count: 32)
        defer { SecureBytes.wipe(&derived) }
        let status = withPasses(keys[...]) { passes in
            page1.withUnsafeBufferPointer { page1 in
                let searches = chains.map { key, algorithm in
                    cipherprovider_search(
                        pass: passes[key].baseAddress, pass_length: Int32(passes[key].count), page1: page1.baseAddress, length: page1.count,
                        digest: algorithm.digestBits, max_iterations: Int32(maxIterations), stop: stop)
                }
                return cipherprovider_pbkdf2_search_lockstep(searches, Int32(searches.count), &which, &iterations, &derived, &match)
            }
        }
        guard status == 1 else { return (status, nil) }
        let chain = chains[Int(which)]
        return (status, (chain.passphrase, chain.algorithm, Int(iterations), SecureBytes(derived), match))
    }

    /// Calls `body` with the bytes of every key in `keys`, each pointer valid throughout.
    private static func withPasses<R>(
        _ keys: ArraySlice<KeyMaterial>, _ passes: [UnsafeRawBufferPointer] = [], _ body: ([UnsafeRawBufferPointer]) -> R
    ) -> R {
        guard let first = keys.first else { return body(passes) }
        return first.codecBytes.withUnsafeBytes { withPasses(keys.dropFirst(), passes + [$0], body) }
    }

    /// Runs `body` for each index on a thread of its own and waits for all of them.
    private static func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            DetachedThread.start {
                body(index)
                group.leave()
            }
        }
        group.wait()
    }

    /// The settings a block match allows: HMAC off for a 16-byte reserve, else each HMAC whose
    /// IV and digest round up to the reserve (any that fits when none does exactly), each with
    /// both page-number byte orders.
    static func candidates(for match: cipherprovider_block_match, kdf: KDFAlgorithm, iterations: Int?) -> [CipherSettings] {
        var base = CipherSettings(pageSize: Int(match.page_size), kdfIterations: iterations, kdfAlgorithm: kdf)
        let reserve = Int(match.reserve)
        if reserve == 16 {
            base.useHMAC = false
            return [base]
        }
        let sizes: [(HMACAlgorithm, Int)] = [(.sha512, 64), (.sha256, 32), (.sha1, 20)]
        let exact = sizes.filter { (16 + $0.1 + 15) / 16 * 16 == reserve }
        let fitting = exact.isEmpty ? sizes.filter { 16 + $0.1 <= reserve } : exact
        return fitting.flatMap { algorithm, _ in
            [HMACPageNumber.littleEndian, .bigEndian].map { order in
                var settings = base
                settings.useHMAC = true
                settings.hmacAlgorithm = algorithm
                settings.hmacPageNumber = order
                return settings
            }
        }
    }
}
