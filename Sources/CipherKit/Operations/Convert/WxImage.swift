import CCipherProvider
import FoundationEssentials

/// A file in one of the unauthenticated schemes of SQLite3 Multiple Ciphers (`WxScheme`)
/// decrypted into memory: the plaintext database a conversion reads, never on any disk.
/// These schemes have no MAC: a wrong key shows only in page 1's header, and damage to any
/// other page only in SQLite's own check of the plaintext (`FamilyExporter`).
struct WxImage {
    let bytes: [UInt8]
    let scheme: WxScheme

    /// - Throws: `CipherKitError.cannotDecrypt` when page 1 does not decrypt to a header (a
    ///   wrong key or scheme), `damagedPages` when the file ends inside a page, `fileAccess`.
    static func read(_ path: String, key: KeyMaterial, scheme: WxScheme) throws -> WxImage {
        let pageSize = scheme.pageSize
        let raw = try SourceFile.read(path, pageSize: pageSize, salted: false)
        let count = raw.count / pageSize
        var plain = [UInt8](repeating: 0, count: count * pageSize)
        let result = try decrypt(raw.prefix(count * pageSize), key: key, scheme: scheme, into: &plain)
        guard result == 1 else {
            SecureBytes.wipe(&plain)
            throw CipherKitError.cannotDecrypt(path: path, failure: .wrongKeyForScheme(scheme: scheme.summary))
        }
        if raw.count % pageSize != 0 {
            SecureBytes.wipe(&plain)
            throw CipherKitError.damagedPages(path: path, pages: [DamagedPage(page: count + 1, reason: "is cut short")])
        }
        return WxImage(bytes: plain, scheme: scheme)
    }

    /// Decrypts whole pages from page 1 on; returns `wxpage_decrypt_run`'s answer (1, or 0 for
    /// a page 1 that is no header).
    private static func decrypt(_ pages: ArraySlice<UInt8>, key: KeyMaterial, scheme: WxScheme, into out: inout [UInt8]) throws -> Int32 {
        var derived = [UInt8](repeating: 0, count: 32)
        defer { SecureBytes.wipe(&derived) }
        let made = key.codecBytes.withUnsafeBytes { passphrase in
            wxpage_key(scheme.code, passphrase.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(passphrase.count), &derived)
        }
        guard made > 0 else { throw CipherKitError.crypto(operation: "\(scheme.cipherName) key") }
        let result = pages.withUnsafeBytes { input in
            derived.withUnsafeBufferPointer { derivedKey in
                out.withUnsafeMutableBytes { output in
                    var codec = wxpage_codec(scheme: scheme.code, key: derivedKey.baseAddress, legacy: scheme.legacy ? 1 : 0, page_size: Int32(scheme.pageSize))
                    return wxpage_decrypt_run(
                        &codec, input.baseAddress?.assumingMemoryBound(to: UInt8.self), 1, Int32(pages.count / scheme.pageSize),
                        output.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        guard result >= 0 else { throw CipherKitError.crypto(operation: "\(scheme.cipherName) decryption") }
        return result
    }

    /// The scheme of the file at `file.path` when the key opens it in one of these schemes:
    /// a file whose plain header shows no reserved bytes is tried in both AES schemes; a file
    /// that looks random, in legacy mode in each scheme (only the one `family` names, when it
    /// names one), its page size read from the decrypted header. nil when none opens, or in
    /// FIPS mode, which runs none of them; a passphrase only, since they take no raw key.
    static func scheme(of file: DatabaseFile, family: CipherFamily?, key: KeyMaterial) -> WxScheme? {
        guard CryptoMode.current != .fips, key.kind == .passphrase, family.map(WxScheme.families.contains) ?? true else { return nil }
        let families = family.map { [$0] } ?? WxScheme.families
        if file.kind == .sqlite3MultipleCiphers, file.reservedBytes == 0, let header = FileOperations.leadingBytes(of: file.path, count: 24) {
            let size = Int(header[16]) << 8 | Int(header[17])
            return families.filter { $0 != .rc4 }.map { WxScheme(family: $0, legacy: false, pageSize: size == 1 ? 65536 : size) }
                .first { opens(file.path, key: key, scheme: $0) }
        }
        guard file.kind == .opaque, let header = FileOperations.leadingBytes(of: file.path, count: 32), header.count == 32 else { return nil }
        for family in families {
            var plain = [UInt8](repeating: 0, count: 32)
            defer { SecureBytes.wipe(&plain) }
            let peek = WxScheme(family: family, legacy: true, pageSize: 32)
            guard (try? decrypt(header[...], key: key, scheme: peek, into: &plain)) == 1 else { continue }
            let size = Int(plain[16]) << 8 | Int(plain[17]) == 1 ? 65536 : Int(plain[16]) << 8 | Int(plain[17])
            guard size >= 512, size & (size - 1) == 0 else { continue }
            return WxScheme(family: family, legacy: true, pageSize: size)
        }
        return nil
    }

    /// Whether `key` decrypts page 1 of the file at `path` to a header in `scheme`.
    private static func opens(_ path: String, key: KeyMaterial, scheme: WxScheme) -> Bool {
        guard [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536].contains(scheme.pageSize),
              let first = FileOperations.leadingBytes(of: path, count: scheme.pageSize), first.count == scheme.pageSize else { return false }
        var plain = [UInt8](repeating: 0, count: scheme.pageSize)
        defer { SecureBytes.wipe(&plain) }
        return (try? decrypt(first[...], key: key, scheme: scheme, into: &plain)) == 1
    }
}
