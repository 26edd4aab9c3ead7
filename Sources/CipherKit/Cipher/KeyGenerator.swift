/// New random raw keys: 256 bits from the system's secure generator (`getrandom` on Linux,
/// through Swift's `SystemRandomNumberGenerator`), as a key file holds them: 64 lowercase hex
/// digits and a newline, the form a raw key file is read in.
public enum KeyGenerator {
    /// A new key as its hex line, in locked memory that is wiped when freed.
    public static func rawKeyLine() -> SecureBytes {
        var generator = SystemRandomNumberGenerator()
        var key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
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

    /// Writes a new key to a new file at `path`: mode 0600, never over anything that is there
    /// (a file, a link), fsynced with its directory before this returns, so that the key is
    /// kept before anything is encrypted with it. What a run killed while it wrote the file
    /// left beside it (a temporary copy holding key material) is removed first; `told` hears
    /// of each.
    ///
    /// - Throws: `CipherKitError.fileExists` when anything is at `path`, `fileAccess` or
    ///   `outOfSpace` when it cannot be written.
    public static func writeKeyFile(_ path: String, told: LeftoverListener? = nil) throws {
        try writeKeyFile(path, line: rawKeyLine(), told: told)
    }

    /// Writes `line`, a key as its file holds it, to a new file at `path`, as
    /// `writeKeyFile(_:told:)` writes a new key.
    public static func writeKeyFile(_ path: String, line: SecureBytes, told: LeftoverListener? = nil) throws {
        _ = TemporaryDatabase.removeLeftovers(beside: path, told: told)
        try line.withUnsafeBytes { try FileOperations.writeNew(path, bytes: $0) }
    }
}
