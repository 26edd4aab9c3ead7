import CCipherProvider

/// New random raw keys: 256 bits from the system's secure generator (`getrandom` on Linux,
/// through Swift's `SystemRandomNumberGenerator`), or in FIPS mode from OpenSSL's DRBG
/// (`RAND_bytes`, inside the provider OpenSSL uses), as a key file holds them: 64 lowercase
/// hex digits and a newline, the form a raw key file is read in.
public enum KeyGenerator {
    /// A new key as its hex line, in locked memory that is wiped when freed.
    ///
    /// - Throws: `CipherKitError.crypto` when OpenSSL's generator fails in FIPS mode.
    public static func rawKeyLine() throws -> SecureBytes {
        var key = try randomKey()
        // Filled in place: no intermediate array holds the digits.
        let digits = Array("0123456789abcdef".utf8)
        var line = [UInt8](repeating: UInt8(ascii: "\n"), count: 65)
        for (index, byte) in key.enumerated() {
            line[2 * index] = digits[Int(byte >> 4)]
            line[2 * index + 1] = digits[Int(byte & 0x0f)]
        }
        defer {
            SecureBytes.wipe(&key)
            SecureBytes.wipe(&line)
        }
        return SecureBytes(line)
    }

    private static func randomKey() throws -> [UInt8] {
        guard CryptoMode.current == .fips else {
            var generator = SystemRandomNumberGenerator()
            return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        var key = [UInt8](repeating: 0, count: 32)
        guard cipherprovider_random_bytes(&key, 32) == 1 else { throw CipherKitError.crypto(operation: "random key") }
        return key
    }

    /// Writes a new key to a new file at `path`: mode 0600, never over anything that is there
    /// (a file, a link), fsynced with its directory before this returns, so that the key is
    /// kept before anything is encrypted with it. What a run killed while it wrote the file
    /// left beside it (a temporary copy holding key material) is removed first; `told` hears
    /// of each.
    ///
    /// - Throws: `CipherKitError.fileExists` when anything is at `path`, `fileAccess` or
    ///   `outOfSpace` when it cannot be written.
    public static func writeKeyFile(_ path: String, told: LeftoverListener? = nil) throws {
        try writeKeyFile(path, line: try rawKeyLine(), told: told)
    }

    /// Writes `line`, a key as its file holds it, to a new file at `path`, as
    /// `writeKeyFile(_:told:)` writes a new key.
    public static func writeKeyFile(_ path: String, line: SecureBytes, told: LeftoverListener? = nil) throws {
        _ = TemporaryDatabase.removeLeftovers(beside: path, told: told)
        try line.withUnsafeBytes { try FileOperations.writeNew(path, bytes: $0) }
    }
}
