import FoundationEssentials

extension DatabaseOpener {
    /// The plaintext header sizes tried: multiples of 16 within SQLite's 100-byte header.
    static let plaintextHeaderSizes = [16, 32, 48, 64, 80, 96]

    /// Throws when the file shows a plaintext header and page 1 fails its HMAC with `key` and
    /// `settings` but passes it under another header size: the size given (or the default
    /// 32) is wrong. Past its first block, page 1 still decrypts under a larger size, so the
    /// rest of the page would otherwise read as damage to it.
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` (`wrongPlaintextHeaderSize`).
    static func refuseWrongHeaderSize(_ request: OpenRequest, key: KeyMaterial, settings: CipherSettings, file: DatabaseFile) throws {
        let effective = settings.effective
        guard file.kind == .plaintextHeader, let given = effective.plaintextHeaderSize, let salt = effective.salt ?? key.salt,
              let page1 = FileHead.bytes(of: file.path), !passes(page1, key: key, salt: salt, settings: effective) else { return }
        for size in plaintextHeaderSizes where size != given && passes(page1, key: key, salt: salt, settings: effective.with(\.plaintextHeaderSize, size)) {
            throw CipherKitError.cannotDecrypt(path: request.path, failure: .wrongPlaintextHeaderSize(given: given, opens: size))
        }
    }

    /// Whether page 1 (from `head`, the file's first bytes) passes its HMAC; false without one.
    private static func passes(_ head: [UInt8], key: KeyMaterial, salt: [UInt8], settings: CipherSettings) -> Bool {
        guard let codec = try? PageCodec(key: key, salt: salt, settings: settings), codec.hasHMAC, head.count >= codec.pageSize else { return false }
        return head.prefix(codec.pageSize).withUnsafeBytes { (try? codec.damagedPages(in: $0, first: 1, count: 1)) == [] }
    }

    /// A plaintext header keeps page 1's bytes 16 to 31 outside the cipher and its HMAC, so
    /// the key proves none of them. Two are damage however the pages read, once the key has
    /// proven the settings: a reserved-bytes field (byte 20) under the settings' IV and HMAC,
    /// which makes SQLite read each page's end as cells (SQLCipher may reserve more, not
    /// less); and a file format version (bytes 18, 19) past 2, which makes SQLite refuse every
    /// write as read-only. A larger reserve than the pages were written with is found by
    /// SQLite's check, which every write runs for such a file (`PageScan.requireUndamaged`).
    static func refuseDamagedPlainHeader(_ request: OpenRequest, file: DatabaseFile) throws {
        guard request.key != nil, file.kind == .plaintextHeader,
              let header = FileOperations.leadingBytes(of: request.path, count: 21), header.count == 21 else { return }
        let needed = request.settings.effective.reservedBytes
        // Only the bytes before the header size are plain; past it the HMAC covers them.
        let plain = request.settings.effective.plaintextHeaderSize ?? defaultPlaintextHeaderSize
        let problem: String
        if plain > 20, Int(header[20]) < needed {
            problem = "its plaintext header's reserved-bytes field (byte 20) says \(header[20]), and the cipher settings reserve \(needed)"
        } else if plain > 19, header[18] > 2 || header[19] > 2 {
            problem = "its plaintext header's file format versions (bytes 18 and 19) are \(header[18]) and \(header[19]), past SQLite's 2"
        } else {
            return
        }
        throw CipherKitError.damagedPages(path: request.path, pages: [DamagedPage(page: 1, reason: problem)])
    }
}
