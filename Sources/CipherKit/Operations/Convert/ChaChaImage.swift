import FoundationEssentials

/// A ChaCha20 file of SQLite3 Multiple Ciphers decrypted into memory, every page's Poly1305
/// tag checked first: the plaintext database a conversion reads, never on any disk.
struct ChaChaImage {
    /// The plaintext pages, page 1 beginning with "SQLite format 3\0".
    let bytes: [UInt8]
    let scheme: ChaChaScheme

    var pages: Int { bytes.count / scheme.pageSize }

    /// - Throws: `CipherKitError.cannotDecrypt` when no page's tag matches (a wrong key or
    ///   scheme), `damagedPages` when some pages' do not (page 1's too) or the file ends
    ///   inside a page, `fileAccess` when the file cannot be read.
    static func read(_ path: String, key: KeyMaterial, scheme: ChaChaScheme) throws -> ChaChaImage {
        let pageSize = scheme.pageSize
        // A legacy file's page size is encrypted with it: given, or sqleet's default, and
        // proven only by page 1's tag (else the -wal beside it is another database's).
        let raw = try SourceFile.read(path, pageSize: pageSize, salted: true, pageSizeAssumed: scheme.legacy && !opens(path, key: key, scheme: scheme))
        let codec = try ChaChaCodec(key: key, salt: Array(raw[0..<16]), scheme: scheme)
        let count = raw.count / pageSize
        var plain = [UInt8](repeating: 0, count: count * pageSize)
        let failed = try raw.withUnsafeBytes { from in
            try plain.withUnsafeMutableBytes { to in
                try codec.decrypt(UnsafeRawBufferPointer(rebasing: from[0..<count * pageSize]), first: 1, into: to)
            }
        }
        // Every page failing is a wrong key; page 1 alone, with others passing, is damage to it.
        if failed.first == 1, failed.count == count {
            throw CipherKitError.cannotDecrypt(path: path, failure: .wrongKeyForScheme(scheme: scheme.summary))
        }
        var damaged = failed.map { DamagedPage(page: $0, reason: "fails its Poly1305 tag") }
        if raw.count % pageSize != 0 { damaged.append(DamagedPage(page: count + 1, reason: "is cut short")) }
        guard damaged.isEmpty else { throw CipherKitError.damagedPages(path: path, pages: damaged) }
        return ChaChaImage(bytes: plain, scheme: scheme)
    }

    /// Whether `key` opens page 1 of the ChaCha20 file at `path` with `scheme` (its tag matches).
    static func opens(_ path: String, key: KeyMaterial, scheme: ChaChaScheme) -> Bool {
        // FIPS mode runs no ChaCha20: the file is not tried, and stays another family's.
        guard CryptoMode.current != .fips, let first = FileOperations.leadingBytes(of: path, count: scheme.pageSize), first.count == scheme.pageSize,
              let codec = try? ChaChaCodec(key: key, salt: Array(first[0..<16]), scheme: scheme) else { return false }
        var plain = [UInt8](repeating: 0, count: scheme.pageSize)
        defer { SecureBytes.wipe(&plain) }
        return first.withUnsafeBytes { page in
            plain.withUnsafeMutableBytes { out in (try? codec.decrypt(page, first: 1, into: out))?.isEmpty ?? false }
        }
    }

    /// The scheme of the file at `path` when it is one of ChaCha20: shown by its plain header
    /// (32 reserved bytes), named by `family` for a file that looks random (legacy mode), or,
    /// with `key` and no family named, found by trying sqleet's settings on page 1 of a file
    /// that looks random. `given` holds the iterations and page size the user named.
    static func scheme(of file: DatabaseFile, family: CipherFamily?, given: CipherSettings, key: KeyMaterial? = nil) -> ChaChaScheme? {
        if file.kind == .sqlite3MultipleCiphers, file.reservedBytes == 32, family != .sqlcipher,
           let header = FileOperations.leadingBytes(of: file.path, count: 24) {
            let size = Int(header[16]) << 8 | Int(header[17])
            let defaults = ChaChaScheme.defaults
            return ChaChaScheme(kdfIterations: given.kdfIterations ?? defaults.kdfIterations, legacy: false, pageSize: size == 1 ? 65536 : size)
        }
        guard family != .sqlcipher, file.kind == .opaque else { return nil }
        let sqleet = ChaChaScheme.sqleet
        let legacy = ChaChaScheme(kdfIterations: given.kdfIterations ?? sqleet.kdfIterations, legacy: true, pageSize: given.pageSize ?? sqleet.pageSize)
        if family == .chacha20 { return legacy }
        // Only sqleet's own settings are tried: one derivation, before SQLCipher's search.
        guard let key, given.kdfIterations == nil, given.pageSize == nil, opens(file.path, key: key, scheme: legacy) else { return nil }
        return legacy
    }
}
