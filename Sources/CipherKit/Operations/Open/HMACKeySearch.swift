/// Finds the settings that make SQLCipher's HMAC key, once a key is known to be right for a
/// file: the salt mask of SQLCipher's deprecated `PRAGMA cipher_hmac_salt_mask`, and the
/// count of `PRAGMA fast_kdf_iter`.
///
/// Both enter only the HMAC key, so a right key under another mask or count decrypts page 1
/// to SQLite's header (`DamageDiagnosis.fixedHeaderMatches`) while every page fails its
/// HMAC. Each candidate then costs its count of PBKDF2 iterations and the HMACs of pages 1
/// and 2 (page 2 decides when page 1 is damaged): the other 255 masks at the count named,
/// then the counts of `fastKDFIterationCandidates` under the mask named, then every other
/// mask with each of those counts to `combinedCountLimit`.
enum HMACKeySearch {
    /// The `fast_kdf_iter` counts tried besides the one named (SQLCipher's 2): every count
    /// to 64, then round ones to 10,000, about 40,000 PBKDF2 iterations in all.
    static let fastKDFIterationCandidates = Array(1...64) + [100, 128, 200, 250, 256, 500, 512, 1000, 1024, 2000, 2048, 4000, 4096, 5000, 10000]
    /// The counts tried with every other mask too: about 35,000 PBKDF2 iterations more.
    static let combinedCountLimit = 16

    /// `settings` with the mask (when `masks`) or the `fast_kdf_iter` count (when
    /// `fastKDFCounts`) under which page 1 (else page 2) passes its HMAC with `key`, other
    /// than the ones `settings` name; nil when the key does not decrypt page 1, when the
    /// settings carry no HMAC, or when no candidate makes either page pass.
    static func find(file: DatabaseFile, key: KeyMaterial, settings: CipherSettings, masks: Bool = true, fastKDFCounts: Bool = true) -> CipherSettings? {
        let effective = settings.effective
        guard let (raw, salt, pages) = pagesToTest(file: file, key: key, settings: effective) else { return nil }
        let namedMask = effective.hmacSaltMask ?? SaltMaskGate.defaultMask
        let namedCount = effective.fastKDFIterations ?? 2
        let otherMasks = masks ? (UInt8.min...UInt8.max).filter { $0 != namedMask } : []
        let otherCounts = fastKDFCounts ? fastKDFIterationCandidates.filter { $0 != namedCount } : []
        // Both changed: every mask with the small counts.
        let both = otherMasks.flatMap { mask in otherCounts.filter { $0 <= combinedCountLimit }.map { (mask, $0) } }
        let candidates = otherMasks.map { effective.with(\.hmacSaltMask, $0) } + otherCounts.map { effective.with(\.fastKDFIterations, $0) }
            + both.map { effective.with(\.hmacSaltMask, $0.0).with(\.fastKDFIterations, $0.1) }
        for candidate in candidates {
            // Each candidate's HMAC key is derived once for both pages.
            guard let codec = try? PageCodec(key: raw, salt: salt, settings: candidate) else { return nil }
            if pages.contains(where: { passes($0.bytes, pgno: $0.pgno, codec) }) {
                return settings.with(\.hmacSaltMask, candidate.hmacSaltMask).with(\.fastKDFIterations, candidate.fastKDFIterations)
            }
        }
        return nil
    }

    /// Whether `key` decrypts page 1 to SQLite's header under `settings`, which carry an HMAC.
    static func decryptsPageOne(file: DatabaseFile, key: KeyMaterial, settings: CipherSettings) -> Bool {
        pagesToTest(file: file, key: key, settings: settings.effective) != nil
    }

    /// The raw key, the salt, and pages 1 and 2 as stored, when the key decrypts page 1 to
    /// SQLite's header under `settings` (which carry an HMAC); nil otherwise.
    private static func pagesToTest(file: DatabaseFile, key: KeyMaterial, settings: CipherSettings) -> (KeyMaterial, [UInt8], [(pgno: Int, bytes: [UInt8])])? {
        let header = settings.plaintextHeaderSize ?? 0
        // FIPS mode searches no settings.
        guard CryptoMode.current != .fips, settings.useHMAC != false,
              let salt = settings.salt ?? key.salt ?? (header == 0 ? file.firstBytes : nil), salt.count == 16,
              let raw = key.kind == .passphrase ? try? KeyDerivation.rawKey(for: key, salt: salt, settings: settings) : key,
              let codec = try? PageCodec(key: raw, salt: salt, settings: settings),
              let source = try? PageSource(path: file.path, pageSize: codec.pageSize), let page1 = source.page(1), page1.count == codec.pageSize,
              let plain = codec.decrypt(page1, pgno: 1), DamageDiagnosis.fixedHeaderMatches(plain, codec: codec) else { return nil }
        let page2 = source.page(2).flatMap { $0.count == codec.pageSize ? $0 : nil }
        return (raw, salt, [(1, page1)] + (page2.map { [(2, $0)] } ?? []))
    }

    private static func passes(_ page: [UInt8], pgno: Int, _ codec: PageCodec) -> Bool {
        (try? page.withUnsafeBytes { try codec.damagedPages(in: $0, first: pgno, count: 1) })?.isEmpty == true
    }
}
