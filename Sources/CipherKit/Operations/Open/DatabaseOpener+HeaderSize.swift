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
}
