/// Finds the HMAC salt mask of a file written under SQLCipher's deprecated
/// `PRAGMA cipher_hmac_salt_mask`, once a key is known to be right for it.
///
/// The mask enters only the HMAC key, so a right key under another mask decrypts page 1 to
/// SQLite's header (`DamageDiagnosis.fixedHeaderMatches`) while every page fails its HMAC.
/// Each of the other 255 masks then costs two PBKDF2 iterations and the HMACs of pages 1
/// and 2 (page 2 decides when page 1 is damaged).
enum SaltMaskSearch {
    /// The mask under which page 1 (else page 2) passes its HMAC with `key` and `settings`,
    /// other than the one `settings` name (SQLCipher's 0x3a when they name none); nil when
    /// the key does not decrypt page 1, when the settings carry no HMAC, or when no other
    /// mask makes either page pass.
    static func find(file: DatabaseFile, key: KeyMaterial, settings: CipherSettings) -> UInt8? {
        let effective = settings.effective
        let header = effective.plaintextHeaderSize ?? 0
        // FIPS mode searches no settings.
        guard CryptoMode.current != .fips, effective.useHMAC != false,
              let salt = effective.salt ?? key.salt ?? (header == 0 ? file.firstBytes : nil), salt.count == 16,
              let raw = key.kind == .passphrase ? try? KeyDerivation.rawKey(for: key, salt: salt, settings: effective) : key,
              let codec = try? PageCodec(key: raw, salt: salt, settings: effective),
              let source = try? PageSource(path: file.path, pageSize: codec.pageSize), let page1 = source.page(1), page1.count == codec.pageSize,
              let plain = codec.decrypt(page1, pgno: 1), DamageDiagnosis.fixedHeaderMatches(plain, codec: codec) else { return nil }
        let page2 = source.page(2).flatMap { $0.count == codec.pageSize ? $0 : nil }
        // Each mask's HMAC key is derived once for both pages.
        let named = effective.hmacSaltMask ?? SaltMaskGate.defaultMask
        for mask in UInt8.min...UInt8.max where mask != named {
            guard let masked = try? PageCodec(key: raw, salt: salt, settings: effective.with(\.hmacSaltMask, mask)) else { return nil }
            if passes(page1, pgno: 1, masked) || page2.map({ passes($0, pgno: 2, masked) }) == true { return mask }
        }
        return nil
    }

    private static func passes(_ page: [UInt8], pgno: Int, _ codec: PageCodec) -> Bool {
        (try? page.withUnsafeBytes { try codec.damagedPages(in: $0, first: pgno, count: 1) })?.isEmpty == true
    }
}
