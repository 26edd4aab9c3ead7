import CCipherProvider

/// The pages of a ChaCha20 file (`ChaChaScheme`) decrypted and encrypted one at a time, with
/// the master key derived once from the key and the file's salt and held in locked memory.
/// See `Sources/CCipherProvider/ChaChaPage.c` for the format.
final class ChaChaCodec {
    let scheme: ChaChaScheme
    let salt: [UInt8]
    private let masterKey: SecureBytes

    /// - Throws: `CipherKitError.crypto` when OpenSSL fails.
    init(key: KeyMaterial, salt: [UInt8], scheme: ChaChaScheme) throws {
        self.scheme = scheme
        self.salt = salt
        var derived = [UInt8](repeating: 0, count: 32)
        defer { SecureBytes.wipe(&derived) }
        if key.kind == .passphrase {
            let made = key.codecBytes.withUnsafeBytes { passphrase in
                chachapage_master_key(passphrase.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(passphrase.count), salt, Int32(scheme.kdfIterations), &derived)
            }
            guard made == 1 else { throw CipherKitError.crypto(operation: "PBKDF2-HMAC-SHA256") }
        } else {
            // A raw key is the master key itself, as SQLite3 Multiple Ciphers takes `x'…'`.
            key.rawKeyBytes().withUnsafeBytes { derived = Array($0) }
        }
        masterKey = SecureBytes(derived)
    }

    /// Decrypts the whole pages of `pages`, the first numbered `first`, into `out`; returns
    /// the numbers of those whose tag does not match (their output is not written).
    func decrypt(_ pages: UnsafeRawBufferPointer, first: Int, into out: UnsafeMutableRawBufferPointer) throws -> [Int] {
        let count = pages.count / scheme.pageSize
        var bad = [UInt8](repeating: 0, count: max(1, count))
        let found = withCodec { codec in
            chachapage_decrypt_run(
                &codec, pages.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(first), Int32(count), out.baseAddress?.assumingMemoryBound(to: UInt8.self), &bad)
        }
        guard found >= 0 else { throw CipherKitError.crypto(operation: "ChaCha20-Poly1305 decryption") }
        return (0..<count).filter { bad[$0] != 0 }.map { first + $0 }
    }

    /// Encrypts the whole pages of a plaintext database in `plain`, the first numbered `first`, into `out`, each with a fresh nonce.
    func encrypt(_ plain: UnsafeRawBufferPointer, first: Int, into out: UnsafeMutableRawBufferPointer) throws {
        let count = plain.count / scheme.pageSize
        let result = withCodec { codec in
            chachapage_encrypt_run(
                &codec, plain.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(first), Int32(count), out.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
        guard result == 1 else { throw CipherKitError.crypto(operation: "ChaCha20-Poly1305 encryption") }
    }

    private func withCodec(_ body: (inout chachapage_codec) -> Int32) -> Int32 {
        masterKey.withUnsafeBytes { key in
            salt.withUnsafeBufferPointer { salt in
                var codec = chachapage_codec(
                    key: key.baseAddress?.assumingMemoryBound(to: UInt8.self), salt: salt.baseAddress, page_size: Int32(scheme.pageSize),
                    skip: Int32(scheme.plainBytes), nonce: nil)
                return body(&codec)
            }
        }
    }
}
