import CCipherProvider

/// SQLCipher's page format for one database, read without SQLite: each page's HMAC checked
/// on its own, and pages decrypted (CCipherProvider's `PageCodec.c`).
///
/// SQLite's pager stops at the first page that fails its HMAC and leaves the connection
/// unusable, so a check through SQLite cannot list every damaged page; this can. The keys
/// live in `SecureBytes` (locked, zeroed when released).
final class PageCodec: @unchecked Sendable {
    let settings: CipherSettings
    let pageSize: Int
    let reserve: Int
    let page1Offset: Int
    /// The database's salt, which its HMAC key is derived with.
    let salt: [UInt8]
    /// The 16 bytes a written page 1 begins with: the salt, or SQLite's magic for a 16-byte
    /// plaintext header (the C codec writes them whenever page 1's encryption starts at 16).
    private let pageOneStart: [UInt8]
    private let key: SecureBytes
    private let hmacKey: SecureBytes?

    /// A codec for a database opened with `key` (a raw key, or a passphrase derived here)
    /// and `settings` (complete: the format's, with the salt where it lives outside the
    /// file); `salt` is the database's.
    ///
    /// - Throws: `CipherKitError.refused` when the key cannot be derived.
    init(key: KeyMaterial, salt: [UInt8], settings: CipherSettings) throws {
        let effective = settings.effective
        self.settings = effective
        pageSize = effective.pageSize ?? 4096
        reserve = effective.reservedBytes
        let header = effective.plaintextHeaderSize ?? 0
        page1Offset = header > 0 ? header : 16
        self.salt = salt
        pageOneStart = header == 16 ? DatabaseFile.sqliteMagic : salt
        // The C codec encrypts page 1 from page1Offset to the reserve: at least one block.
        guard pageSize - reserve - page1Offset >= 16 else {
            throw CipherKitError.crypto(operation: "a page of \(pageSize) bytes has no room past a header of \(page1Offset) and \(reserve) reserved bytes")
        }
        let raw = key.kind == .passphrase ? try KeyDerivation.rawKey(for: key, salt: salt, settings: effective) : key
        self.key = raw.rawKeyBytes()
        guard effective.useHMAC != false else {
            hmacKey = nil
            return
        }
        var derived = [UInt8](repeating: 0, count: 32)
        defer { SecureBytes.wipe(&derived) }
        let status = self.key.withUnsafeBytes { keyBytes in
            cipherpage_hmac_key_masked(
                keyBytes.bindMemory(to: UInt8.self).baseAddress, salt, Int32(effective.fastKDFIterations ?? 2), (effective.kdfAlgorithm ?? .pbkdf2SHA512).digestBits,
                effective.hmacSaltMask ?? 0x3a, &derived)
        }
        guard status == 1 else { throw CipherKitError.crypto(operation: "the HMAC key could not be derived") }
        hmacKey = SecureBytes(derived)
    }

    /// Whether pages carry an HMAC that `check` can test.
    var hasHMAC: Bool { hmacKey != nil }

    /// The page numbers among `count` whole pages in `pages`, the first numbered `first`,
    /// that fail their HMAC.
    func damagedPages(in pages: UnsafeRawBufferPointer, first: Int, count: Int) throws -> [Int] {
        var bad = [UInt8](repeating: 0, count: count)
        let found = withCodec { codec in
            cipherpage_check(&codec, pages.bindMemory(to: UInt8.self).baseAddress, UInt32(first), Int32(count), &bad)
        }
        guard found >= 0 else { throw CipherKitError.crypto(operation: "page HMACs could not be checked") }
        return bad.indices.filter { bad[$0] != 0 }.map { first + $0 }
    }

    /// The plaintext of page `pgno` from its bytes on disk, or nil when OpenSSL fails.
    func decrypt(_ page: [UInt8], pgno: Int) -> [UInt8]? {
        guard page.count == pageSize else { return nil }
        var out = [UInt8](repeating: 0, count: pageSize)
        let status = withCodec { codec in cipherpage_decrypt(&codec, page, UInt32(pgno), &out) }
        return status == 1 ? out : nil
    }

    /// The page on disk for plaintext `page` numbered `pgno`, with a fresh IV; nil when
    /// OpenSSL fails.
    func encrypt(_ page: [UInt8], pgno: Int) -> [UInt8]? {
        guard page.count == pageSize else { return nil }
        var out = [UInt8](repeating: 0, count: pageSize)
        let status = withCodec { codec in cipherpage_encrypt(&codec, page, UInt32(pgno), &out) }
        return status == 1 ? out : nil
    }

    /// Re-encrypts `count` whole pages from `input` (this codec's) into `output` with
    /// `target`'s key, the first numbered `first`, proving each by decrypting it back
    /// (`cipherpage_convert`); returns the pages that failed, with what was wrong.
    func convert(
        _ input: UnsafeRawBufferPointer, first: Int, count: Int, to target: PageCodec, into output: UnsafeMutableRawBufferPointer
    ) throws -> [(pgno: Int, roundTrip: Bool)] {
        var bad = [UInt8](repeating: 0, count: count)
        let found = withCodec { from in
            target.withCodec { to in
                bad.withUnsafeMutableBufferPointer { bad in
                    var pages = cipherpage_pages(
                        input: input.bindMemory(to: UInt8.self).baseAddress, first_pgno: UInt32(first), count: Int32(count),
                        output: output.bindMemory(to: UInt8.self).baseAddress, bad: bad.baseAddress)
                    return cipherpage_convert(&from, &to, &pages)
                }
            }
        }
        guard found >= 0 else { throw CipherKitError.crypto(operation: "pages could not be re-encrypted") }
        return bad.indices.filter { bad[$0] != 0 }.map { (first + $0, Int(bad[$0]) == CIPHERPAGE_ROUND_TRIP) }
    }

    /// Decrypts `count` whole pages from `input` into `output` as a plaintext database's
    /// pages, the first numbered `first` (`cipherpage_decrypt_run`); returns the pages that
    /// fail their HMAC.
    func decryptPages(_ input: UnsafeRawBufferPointer, first: Int, count: Int, into output: UnsafeMutableRawBufferPointer) throws -> [Int] {
        var bad = [UInt8](repeating: 0, count: count)
        let found = withCodec { from in
            cipherpage_decrypt_run(
                &from, input.bindMemory(to: UInt8.self).baseAddress, UInt32(first), Int32(count), output.bindMemory(to: UInt8.self).baseAddress,
                &bad)
        }
        guard found >= 0 else { throw CipherKitError.crypto(operation: "pages could not be decrypted") }
        return bad.indices.filter { bad[$0] != 0 }.map { first + $0 }
    }

    /// Encrypts `count` whole pages of a plaintext database from `input` into `output`, the
    /// first numbered `first`, each proven by decrypting it back (`cipherpage_encrypt_run`);
    /// returns the pages that did not decrypt back to their source.
    func encryptPages(_ input: UnsafeRawBufferPointer, first: Int, count: Int, into output: UnsafeMutableRawBufferPointer) throws -> [Int] {
        var bad = [UInt8](repeating: 0, count: count)
        let found = withCodec { to in
            cipherpage_encrypt_run(
                &to, input.bindMemory(to: UInt8.self).baseAddress, UInt32(first), Int32(count), output.bindMemory(to: UInt8.self).baseAddress, &bad)
        }
        guard found >= 0 else { throw CipherKitError.crypto(operation: "pages could not be encrypted") }
        return bad.indices.filter { bad[$0] != 0 }.map { first + $0 }
    }

    private func withCodec<R>(_ body: (inout cipherpage_codec) -> R) -> R {
        key.withUnsafeBytes { keyBytes in
            var codec = cipherpage_codec(
                key: keyBytes.bindMemory(to: UInt8.self).baseAddress, hmac_key: nil, page_size: Int32(pageSize), reserve: Int32(reserve),
                hmac_digest: hmacDigest, page1_offset: Int32(page1Offset), big_endian_pgno: settings.hmacPageNumber == .bigEndian ? 1 : 0,
                salt: nil)
            return pageOneStart.withUnsafeBufferPointer { start in
                codec.salt = start.count == 16 ? start.baseAddress : nil
                guard let hmacKey else { return body(&codec) }
                return hmacKey.withUnsafeBytes { hmac in
                    codec.hmac_key = hmac.bindMemory(to: UInt8.self).baseAddress
                    return body(&codec)
                }
            }
        }
    }

    private var hmacDigest: Int32 {
        guard hmacKey != nil else { return 0 }
        switch settings.hmacAlgorithm ?? .sha512 {
        case .sha1: return 1
        case .sha256: return 256
        case .sha512: return 512
        }
    }
}
