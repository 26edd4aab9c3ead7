import FoundationEssentials

/// SQLite3 Multiple Ciphers' SQLCipher scheme outside legacy mode, decrypted into memory. Its
/// pages are SQLCipher's in all but page 1, whose bytes 16 to 23 stay plain and whose
/// encryption and HMAC begin at byte 24, as under SQLCipher's own plaintext header of 24
/// bytes, while bytes 0 to 15 hold the salt (where SQLCipher's header keeps the magic).
/// Every page's HMAC is checked.
/// See https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_sqlcipher/
enum SQLCipherSchemeImage {
    /// Bytes of page 1 that are not encrypted: the salt and bytes 16 to 23.
    static let plainBytes = 24

    /// The plaintext pages, page 1 beginning with "SQLite format 3\0".
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` when every page fails its HMAC (a wrong key or
    ///   settings), `damagedPages` when some do (page 1 too) or the file ends inside a page.
    static func read(_ path: String, key: KeyMaterial, settings: CipherSettings) throws -> [UInt8] {
        let pageSize = settings.pageSize ?? 4096
        let raw = try SourceFile.read(path, pageSize: pageSize, salted: true)
        let count = raw.count / pageSize
        let codec = try self.codec(salt: key.salt ?? Array(raw[0..<16]), key: key, settings: settings)
        var plain = [UInt8](repeating: 0, count: count * pageSize)
        let failed = try raw.withUnsafeBytes { from in
            try plain.withUnsafeMutableBytes { try codec.decryptPages(UnsafeRawBufferPointer(rebasing: from[0..<count * pageSize]), first: 1, count: count, into: $0) }
        }
        var damaged = failed.map { DamagedPage(page: $0, reason: "fails its HMAC") }
        if raw.count % pageSize != 0 { damaged.append(DamagedPage(page: count + 1, reason: "is cut short")) }
        guard damaged.isEmpty else {
            SecureBytes.wipe(&plain)
            // Every page failing is a wrong key; page 1 alone, with others passing, is damage to it.
            if failed.first == 1, failed.count == count { throw CipherKitError.cannotDecrypt(path: path, failure: .wrongKeyForScheme(scheme: summary(settings))) }
            throw CipherKitError.damagedPages(path: path, pages: damaged)
        }
        plain.replaceSubrange(0..<16, with: Array("SQLite format 3\0".utf8))
        return plain
    }

    /// The settings the key opens the file at `file.path` with, when it is in this scheme (a
    /// plain header with 48 to 80 reserved bytes): those given, over SQLCipher 4's defaults,
    /// then SQLCipher 3's, whose reserve is the file's and under which page 1's HMAC holds.
    /// nil when the file is not such a one or none of them opens it.
    static func settings(of file: DatabaseFile, given: CipherSettings, key: KeyMaterial) -> CipherSettings? {
        guard file.kind == .sqlite3MultipleCiphers, let reserve = file.reservedBytes, (48...80).contains(reserve),
              let header = FileOperations.leadingBytes(of: file.path, count: 24) else { return nil }
        let size = Int(header[16]) << 8 | Int(header[17]) == 1 ? 65536 : Int(header[16]) << 8 | Int(header[17])
        guard let pages = FileOperations.leadingBytes(of: file.path, count: 2 * size), pages.count >= size else { return nil }
        for compatibility in [given.compatibility ?? 4, given.compatibility ?? 3] {
            let candidate = given.with(\.pageSize, size).with(\.compatibility, compatibility).effective
            guard candidate.reservedBytes == reserve, let codec = try? codec(salt: key.salt ?? Array(pages[0..<16]), key: key, settings: candidate),
                  holds(pages, codec: codec, size: size) else { continue }
            return candidate
        }
        return nil
    }

    /// Whether page 1 passes its HMAC under `codec`, or, page 1 damaged, page 2 does (a page of
    /// zeros proves nothing).
    private static func holds(_ pages: [UInt8], codec: PageCodec, size: Int) -> Bool {
        for pgno in 1...min(2, pages.count / size) {
            let page = pages[(pgno - 1) * size..<pgno * size]
            guard page.contains(where: { $0 != 0 }) else { continue }
            if (try? page.withUnsafeBytes { try codec.damagedPages(in: $0, first: pgno, count: 1) })?.isEmpty == true { return true }
        }
        return false
    }

    /// One line for reports: `SQLCipher scheme outside legacy mode (kdf_iter 256000, HMAC_SHA512, page size 4096)`.
    static func summary(_ settings: CipherSettings) -> String {
        "SQLCipher scheme outside legacy mode (kdf_iter \(settings.kdfIterations ?? 256_000), \((settings.hmacAlgorithm ?? .sha512).rawValue), page size \(settings.pageSize ?? 4096))"
    }

    private static func codec(salt: [UInt8], key: KeyMaterial, settings: CipherSettings) throws -> PageCodec {
        try PageCodec(key: key, salt: salt, settings: settings.with(\.plaintextHeaderSize, plainBytes))
    }
}
