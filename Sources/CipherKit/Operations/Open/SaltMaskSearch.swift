/// Finds the HMAC salt mask of a file written under SQLCipher's deprecated
/// `PRAGMA cipher_hmac_salt_mask`, once a key is known to be right for it.
///
/// The mask enters only the HMAC key, so a right key under another mask decrypts page 1 to
/// SQLite's header (`DamageDiagnosis.fixedHeaderMatches`) while every page fails its HMAC.
/// Each of the other 255 masks then costs two PBKDF2 iterations and one HMAC of page 1.
enum SaltMaskSearch {
    /// The mask under which page 1 passes its HMAC with `key` and `settings`; nil when the
    /// key does not decrypt page 1, when the settings carry no HMAC or name a mask, or when
    /// no mask makes page 1 pass.
    static func find(file: DatabaseFile, key: KeyMaterial, settings: CipherSettings) -> UInt8? {
        let effective = settings.effective
        let header = effective.plaintextHeaderSize ?? 0
        guard effective.useHMAC != false, effective.hmacSaltMask == nil,
              let salt = effective.salt ?? key.salt ?? (header == 0 ? file.firstBytes : nil), salt.count == 16,
              let raw = key.kind == .passphrase ? try? KeyDerivation.rawKey(for: key, salt: salt, settings: effective) : key,
              let codec = try? PageCodec(key: raw, salt: salt, settings: effective),
              let page1 = (try? PageSource(path: file.path, pageSize: codec.pageSize))?.page(1), page1.count == codec.pageSize,
              let plain = codec.decrypt(page1, pgno: 1), DamageDiagnosis.fixedHeaderMatches(plain, codec: codec) else { return nil }
        for mask in UInt8.min...UInt8.max where mask != SaltMaskGate.defaultMask {
            guard let masked = try? PageCodec(key: raw, salt: salt, settings: effective.with(\.hmacSaltMask, mask)),
                  let bad = try? page1.withUnsafeBytes({ try masked.damagedPages(in: $0, first: 1, count: 1) }) else { return nil }
            if bad.isEmpty { return mask }
        }
        return nil
    }
}
