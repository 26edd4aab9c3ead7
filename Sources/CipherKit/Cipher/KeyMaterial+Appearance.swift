extension KeyMaterial {
    /// Whether the secret appears in `bytes`: a passphrase's bytes, or a raw key's 64 hex
    /// digits (without the salt a raw key may carry) in either case. A secret shorter than 8 bytes counts only when it is all of `bytes`,
    /// since so short a run turns up in unrelated text. For keeping the key out of what
    /// another program is given (an environment), not a test of equality (`hasSameSecret`).
    public func appears(in bytes: [UInt8]) -> Bool {
        codecBytes.withUnsafeBytes { secret in
            var needle = Array(kind == .passphrase ? secret[...] : secret.dropFirst(2).prefix(64))
            var haystack = kind == .passphrase ? bytes : bytes.map(Self.lowercased)
            defer {
                SecureBytes.wipe(&needle)
                SecureBytes.wipe(&haystack)
            }
            if kind != .passphrase { needle = needle.map(Self.lowercased) }
            guard needle.count >= 8 else { return needle == haystack }
            return haystack.count >= needle.count && (0...(haystack.count - needle.count)).contains { start in
                haystack[start..<(start + needle.count)].elementsEqual(needle)
            }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
