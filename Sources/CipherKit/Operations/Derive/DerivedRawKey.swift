/// What `RawKeyDeriver` found: the raw key with its salt that opens a database without key
/// derivation, the settings it opens with, and how they were found.
public struct DerivedRawKey {
    /// The raw key and the salt (`KeyMaterial.Kind.rawKeyWithSalt`); nil for a plaintext database.
    public let key: KeyMaterial?
    /// Every setting SQLCipher ran with, named; the salt only where the file does not keep it
    /// (a plaintext header). Empty for a plaintext database.
    public let settings: CipherSettings
    /// The format the search found; nil when settings were given, or for a plaintext file.
    public let format: CipherFormat?
    /// How many formats were tried.
    public let attempts: Int
    /// Seconds the settings search took, when it found the settings.
    public let searchSeconds: Double?
    /// Whether a hot journal lies beside the file (read past, in memory, to find this).
    public let hotJournal: Bool

    /// The key as a raw key file holds it: 96 hex digits (the key, then the salt) and a
    /// newline, in locked memory; nil for a plaintext database.
    public var fileLine: SecureBytes? {
        key.map { key in
            key.codecBytes.withUnsafeBytes { literal in
                // x'<96 digits>' → <96 digits>\n
                var line = Array(literal.dropFirst(2).dropLast()) + [UInt8(ascii: "\n")]
                defer { SecureBytes.wipe(&line) }
                return SecureBytes(line)
            }
        }
    }
}
