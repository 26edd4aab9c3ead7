/// Tells a right key on a damaged file from a wrong key, when SQLCipher refuses to open the
/// file: to SQLCipher both look alike (page 1 fails its HMAC, or the b-tree is malformed).
///
/// Page 1 decides. When it passes its HMAC, the key and settings are right and the damage is
/// elsewhere (a truncated file, a damaged schema page): every page is checked. When it fails
/// its HMAC but its first encrypted block still decrypts to the fixed bytes of SQLite's header
/// (offsets 16 to 23: page size, versions, payload fractions), the key is
/// right and page 1 itself is damaged past that block. When that block is damaged too, a
/// later page that passes its HMAC proves the key. Damage to the salt, with no salt given,
/// still reads as a wrong key: every key derived from it is wrong.
/// See https://www.sqlite.org/fileformat2.html#the_database_header
enum DamageDiagnosis {
    /// The damage found when `key` with `settings` is the right key for the file at `path`;
    /// nil when it looks like a wrong key (or the check cannot run).
    /// `rawKey` says the user gave a raw key: then a salt given for a plaintext header enters
    /// only the HMAC key, and a page 1 failing its HMAC cannot tell a wrong salt from damage.
    static func diagnose(file: DatabaseFile, key: KeyMaterial, settings: CipherSettings, rawKey: Bool = false) -> [DamagedPage]? {
        let effective = settings.effective
        let header = effective.plaintextHeaderSize ?? 0
        if rawKey, header > 0 { return nil }
        guard let salt = effective.salt ?? key.salt ?? (header == 0 ? file.firstBytes : nil), salt.count == 16,
              let codec = try? PageCodec(key: key, salt: salt, settings: effective),
              let source = try? PageSource(path: file.path, pageSize: codec.pageSize),
              let page1 = source.page(1), page1.count == codec.pageSize else { return nil }
        if codec.hasHMAC {
            guard let bad = try? page1.withUnsafeBytes({ try codec.damagedPages(in: $0, first: 1, count: 1) }) else { return nil }
            if bad.isEmpty {
                // An HMAC that holds over a header that does not decrypt is no damage: another
                // cipher under the same HMAC key (SQLCipher 3's AES-256-CFB beside its CBC).
                if let plain = codec.decrypt(page1, pgno: 1), !fixedHeaderMatches(plain, codec: codec) { return nil }
                // Page 1's HMAC proves the key; with every page whole, what SQLite refused is
                // the schema itself (a row of sqlite_schema broken, two entries on one root).
                guard let scan = try? PageScan.run(path: file.path, codec: codec) else { return nil }
                if !scan.damaged.isEmpty { return scan.damaged }
                return [DamagedPage(page: 1, inWAL: source.isInWAL(1), reason: "holds a schema SQLite cannot read", owner: "the schema")]
            }
        }
        guard let plain = codec.decrypt(page1, pgno: 1), fixedHeaderMatches(plain, codec: codec) else {
            // Page 1's first block (or its IV) is damaged too: another page whose HMAC passes
            // still proves the key, which only the right key and settings can do.
            guard codec.hasHMAC, (try? source.anyPagePassesHMAC(codec, among: 2..<max(2, min(source.pageCount, 64) + 1))) == true,
                  let scan = try? PageScan.run(path: file.path, codec: codec), !scan.damaged.isEmpty else { return nil }
            return scan.damaged
        }
        if codec.hasHMAC {
            // The AES key is right, but every page failing its HMAC says the HMAC settings are
            // wrong (page-number order, algorithm, a raw key's salt), not that every page is damaged.
            guard let scan = try? PageScan.run(path: file.path, codec: codec), !scan.damaged.isEmpty else { return nil }
            let failed = scan.damaged.filter { $0.reason == "fails its HMAC" }.count
            if failed >= 2, failed == scan.pages { return nil }
            if otherPageNumberOrderPasses(page1, file: file, key: key, settings: effective, salt: salt) { return nil }
            return scan.damaged
        }
        let reason = codec.hasHMAC ? "fails its HMAC" : "SQLite reads it as malformed"
        return [DamagedPage(page: 1, inWAL: source.isInWAL(1), reason: reason, owner: "the schema")]
    }

    /// Whether page 1 passes its HMAC with the page number in the other byte order.
    private static func otherPageNumberOrderPasses(_ page1: [UInt8], file: DatabaseFile, key: KeyMaterial, settings: CipherSettings, salt: [UInt8]) -> Bool {
        var other = settings
        other.hmacPageNumber = settings.hmacPageNumber == .bigEndian ? .littleEndian : .bigEndian
        guard let codec = try? PageCodec(key: key, salt: salt, settings: other),
              let bad = try? page1.withUnsafeBytes({ try codec.damagedPages(in: $0, first: 1, count: 1) }) else { return false }
        return bad.isEmpty
    }

    /// Whether the encrypted part of a decrypted page 1 holds what SQLite writes there.
    /// Normally bytes 16 to 23 of the header (page size, versions, payload fractions; not the
    /// reserved-bytes count, which SQLCipher does not always write as it reserves), 64 fixed
    /// bits in the first cipher block, so damage anywhere after that block is told from a
    /// wrong key. Under a plaintext header those bytes are in the clear: the text encoding at
    /// 56 and the schema's b-tree page type at 100 are checked instead, where encrypted.
    static func fixedHeaderMatches(_ page: [UInt8], codec: PageCodec) -> Bool {
        guard page.count > 100 else { return false }
        let clear = codec.page1Offset > 16 ? codec.page1Offset : 0
        guard clear == 0 else {
            guard clear <= 100, [0x0D, 0x05].contains(page[100]) else { return false }
            return clear > 56 || (page[56...58].allSatisfy { $0 == 0 } && (1...3).contains(page[59]))
        }
        let size = Int(page[16]) << 8 | Int(page[17])
        return (size == 1 ? 65536 : size) == codec.pageSize && (1...2).contains(page[18]) && (1...2).contains(page[19])
            && page[21] == 64 && page[22] == 32 && page[23] == 32
    }
}
