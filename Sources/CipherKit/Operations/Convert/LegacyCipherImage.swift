import CCipherProvider
import FoundationEssentials

/// A SQLCipher 1 to 3 file under a `PRAGMA cipher` other than AES-256-CBC
/// (`LegacyCipherScheme`) decrypted into memory: the plaintext database a conversion reads,
/// never on any disk. Every page's HMAC is checked (SQLCipher 1 has none: page 1's decrypted
/// header is checked instead).
enum LegacyCipherImage {
    /// The page sizes SQLCipher 3 writes, in the order a file is tried with them.
    static let pageSizes = [1024, 4096, 2048, 8192, 16384, 32768, 65536, 512]

    /// The plaintext pages, page 1 beginning with "SQLite format 3\0".
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` when page 1 fails (a wrong key or scheme),
    ///   `damagedPages` when a later one fails its HMAC or the file ends inside a page.
    static func read(_ path: String, key: KeyMaterial, scheme: LegacyCipherScheme) throws -> [UInt8] {
        let pageSize = scheme.pageSize
        let raw = try SourceFile.read(path, pageSize: pageSize)
        let count = raw.count / pageSize
        var plain = [UInt8](repeating: 0, count: count * pageSize)
        let failed = try decrypt(raw[0..<count * pageSize], key: key, scheme: scheme, into: &plain)
        guard failed == 0, raw.count % pageSize == 0 else {
            SecureBytes.wipe(&plain)
            if failed == 1 { throw CipherKitError.cannotDecrypt(path: path, failure: .wrongKeyForScheme(scheme: scheme.summary)) }
            let page = failed > 0 ? DamagedPage(page: Int(failed), reason: "fails its HMAC") : DamagedPage(page: count + 1, reason: "is cut short")
            throw CipherKitError.damagedPages(path: path, pages: [page])
        }
        return plain
    }

    /// The scheme the passphrase opens the file at `file.path` with, when it looks random:
    /// each cipher with SQLCipher 3's defaults, then 2's (the HMAC's page numbers little-, then
    /// big-endian), then 1's, page 1's HMAC checked (its header without HMAC), at each page
    /// size. Not in FIPS mode, and not for a raw key.
    static func scheme(of file: DatabaseFile, only ciphers: [LegacyCipherScheme.Cipher] = LegacyCipherScheme.Cipher.allCases, key: KeyMaterial) -> LegacyCipherScheme? {
        guard CryptoMode.current != .fips, key.kind == .passphrase, file.kind == .opaque,
              let head = FileOperations.leadingBytes(of: file.path, count: 65536), head.count >= 512 else { return nil }
        for (iterations, hmac, bigEndian) in [(64_000, true, false), (4_000, true, false), (4_000, true, true), (4_000, false, false)] {
            for cipher in ciphers {
                var scheme = LegacyCipherScheme(cipher: cipher, kdfIterations: iterations, hmac: hmac, pageSize: 0, bigEndianPageNumbers: bigEndian)
                if let size = pageSize(head, key: key, scheme: scheme) {
                    scheme.pageSize = size
                    return scheme
                }
            }
        }
        return nil
    }

    /// The page size at which page 1 holds in `scheme`, its keys derived once.
    private static func pageSize(_ head: [UInt8], key: KeyMaterial, scheme: LegacyCipherScheme) -> Int? {
        guard var keys = try? keys(key, salt: Array(head[0..<16]), scheme: scheme) else { return nil }
        defer { SecureBytes.wipe(&keys.page); SecureBytes.wipe(&keys.hmac) }
        for size in pageSizes where size <= head.count {
            var plain = [UInt8](repeating: 0, count: size)
            defer { SecureBytes.wipe(&plain) }
            var sized = scheme
            sized.pageSize = size
            if run(head[0..<size], keys: keys, scheme: sized, into: &plain) == 0 { return size }
        }
        return nil
    }

    /// Decrypts whole pages from page 1 on; returns `legacypage_decrypt_run`'s answer.
    private static func decrypt(_ pages: ArraySlice<UInt8>, key: KeyMaterial, scheme: LegacyCipherScheme, into out: inout [UInt8]) throws -> Int64 {
        var keys = try keys(key, salt: Array(pages.prefix(16)), scheme: scheme)
        defer { SecureBytes.wipe(&keys.page); SecureBytes.wipe(&keys.hmac) }
        let result = run(pages, keys: keys, scheme: scheme, into: &out)
        guard result >= 0 else { throw CipherKitError.crypto(operation: "\(scheme.cipher.rawValue) decryption") }
        return result
    }

    /// The page key and the HMAC key; the caller wipes them.
    private static func keys(_ key: KeyMaterial, salt: [UInt8], scheme: LegacyCipherScheme) throws -> (page: [UInt8], hmac: [UInt8]) {
        var both = [UInt8](repeating: 0, count: 64)
        defer { SecureBytes.wipe(&both) }
        let made = key.codecBytes.withUnsafeBytes { passphrase in
            legacypage_keys(scheme.cipher.code, passphrase.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(passphrase.count), salt, Int32(scheme.kdfIterations), &both)
        }
        guard made > 0 else { throw CipherKitError.crypto(operation: "\(scheme.cipher.rawValue) key") }
        return (Array(both[0..<32]), Array(both[32..<64]))
    }

    private static func run(_ pages: ArraySlice<UInt8>, keys: (page: [UInt8], hmac: [UInt8]), scheme: LegacyCipherScheme, into out: inout [UInt8]) -> Int64 {
        pages.withUnsafeBytes { input in
            keys.page.withUnsafeBufferPointer { pageKey in
                keys.hmac.withUnsafeBufferPointer { hmacKey in
                    out.withUnsafeMutableBytes { output in
                        var codec = legacypage_codec(
                            cipher: scheme.cipher.code, key: pageKey.baseAddress, hmac_key: hmacKey.baseAddress, use_hmac: scheme.hmac ? 1 : 0,
                            page_size: Int32(scheme.pageSize), big_endian_pgno: scheme.bigEndianPageNumbers ? 1 : 0)
                        return legacypage_decrypt_run(
                            &codec, input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(pages.count / scheme.pageSize),
                            output.baseAddress?.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
    }
}
