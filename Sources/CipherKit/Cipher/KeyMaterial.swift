/// The secret that opens a database: a passphrase, a raw 32-byte key, or a raw key with its salt.
///
/// The bytes live in a `SecureBytes` buffer that is zeroed when the value is released.
/// They are handed to SQLCipher with `sqlite3_key_v2`, never pasted into SQL, and the
/// type's description never shows them.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#key
public final class KeyMaterial: CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of secret the bytes are.
    public enum Kind: String, Sendable {
        /// A passphrase that SQLCipher stretches with its KDF.
        case passphrase
        /// A raw 256-bit key, used as is.
        case rawKey = "raw-key"
        /// A raw 256-bit key followed by the database's 16-byte salt.
        case rawKeyWithSalt = "raw-key-with-salt"
    }

    /// The kind of secret.
    public let kind: Kind

    /// The salt that a raw key with salt carries (not secret); nil for the other kinds.
    public let salt: [UInt8]?

    /// What `sqlite3_key_v2` receives: the passphrase, or the blob literal `x'…'` of a raw key.
    let codecBytes: SecureBytes

    private init(kind: Kind, codecBytes: SecureBytes, salt: [UInt8]?) {
        self.kind = kind
        self.codecBytes = codecBytes
        self.salt = salt
    }

    /// A passphrase made of `bytes`, which are copied; the caller wipes its own copy.
    ///
    /// - Throws: `KeyMaterialError.empty` when there are no bytes.
    ///
    /// A passphrase SQLCipher itself reads as a raw key (`x'` and 64 or 96 hex digits and one
    /// more byte) is that raw key, so that CipherKit's own derivation and SQLCipher agree.
    public static func passphrase<C: Collection>(_ bytes: C) throws -> KeyMaterial where C.Element == UInt8 {
        guard !bytes.isEmpty else { throw KeyMaterialError.empty }
        if looksRawToSQLCipher(bytes) {
            var literal = Array(bytes.dropLast()) + [UInt8(ascii: "'")]
            defer { SecureBytes.wipe(&literal) }
            return try rawKey(hex: literal)
        }
        return KeyMaterial(kind: .passphrase, codecBytes: SecureBytes(bytes), salt: nil)
    }

    /// SQLCipher's own test for raw key data: `x'` (either case), 64 or 96 hex digits, then
    /// any one byte, which it does not look at.
    /// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#key
    static func looksRawToSQLCipher<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        guard bytes.count == 67 || bytes.count == 99 else { return false }
        var copy = Array(bytes.prefix(bytes.count - 1))
        defer { SecureBytes.wipe(&copy) }
        return (copy[0] == UInt8(ascii: "x") || copy[0] == UInt8(ascii: "X")) && copy[1] == UInt8(ascii: "'") && copy[2...].allSatisfy(Hex.isDigit)
    }

    /// A raw key written in hex: exactly 64 digits (the key) or 96 (the key and its salt),
    /// optionally wrapped as `x'…'`.
    ///
    /// SQLCipher itself treats anything else as a passphrase without a word; this refuses it.
    /// - Throws: `KeyMaterialError` naming what is wrong, never the digits themselves.
    public static func rawKey<C: Collection>(hex text: C) throws -> KeyMaterial where C.Element == UInt8 {
        var digits = Array(text)
        defer { SecureBytes.wipe(&digits) }
        if digits.count >= 3, digits.first == UInt8(ascii: "x") || digits.first == UInt8(ascii: "X"),
           digits[1] == UInt8(ascii: "'"), digits.last == UInt8(ascii: "'") {
            var inner = Array(digits[2..<(digits.count - 1)])
            SecureBytes.wipe(&digits)
            digits = inner
            SecureBytes.wipe(&inner)
        }
        guard !digits.isEmpty else { throw KeyMaterialError.empty }
        guard digits.allSatisfy(Hex.isDigit) else { throw KeyMaterialError.rawKeyNotHex }
        guard digits.count == 64 || digits.count == 96 else {
            throw KeyMaterialError.rawKeyLength(digits.count)
        }
        var literal: [UInt8] = [UInt8(ascii: "x"), UInt8(ascii: "'")]
        literal.reserveCapacity(digits.count + 3)
        literal.append(contentsOf: digits)
        literal.append(UInt8(ascii: "'"))
        defer { SecureBytes.wipe(&literal) }
        let salt = digits.count == 96 ? Hex.decode(digits[64...]) : nil
        return KeyMaterial(kind: salt == nil ? .rawKey : .rawKeyWithSalt, codecBytes: SecureBytes(literal), salt: salt)
    }

    /// Whether the two keys hold the same secret, compared in constant time for equal lengths.
    public func hasSameSecret(as other: KeyMaterial) -> Bool {
        guard kind == other.kind, codecBytes.count == other.codecBytes.count else { return false }
        return codecBytes.withUnsafeBytes { mine in
            other.codecBytes.withUnsafeBytes { theirs in
                var difference: UInt8 = 0
                for index in 0..<mine.count { difference |= mine[index] ^ theirs[index] }
                return difference == 0
            }
        }
    }

    public var description: String { "KeyMaterial(\(kind.rawValue), redacted)" }
    public var debugDescription: String { description }
}

extension KeyMaterial {
    /// The 32 key bytes of a raw key (with or without its salt), decoded into locked memory.
    func rawKeyBytes() -> SecureBytes {
        precondition(kind != .passphrase, "a passphrase has no raw key bytes before derivation")
        return codecBytes.withUnsafeBytes { literal in
            var digits = Array(literal[2..<66])
            defer { SecureBytes.wipe(&digits) }
            var bytes = Hex.decode(digits) ?? []
            defer { SecureBytes.wipe(&bytes) }
            return SecureBytes(bytes)
        }
    }
}
