/// Why key material was refused. The messages never include the key.
public enum KeyMaterialError: CipherKitFailure, Equatable {
    /// The key has no bytes.
    case empty
    /// A raw key holds characters other than hex digits.
    case rawKeyNotHex
    /// A raw key has the wrong number of hex digits.
    case rawKeyLength(Int)
    /// A raw key for a file whose scheme (named) derives its key from a passphrase only.
    case rawKeyNotTaken(scheme: String)

    public var message: String {
        switch self {
        case .empty:
            return "the key is empty"
        case .rawKeyNotHex:
            return "a raw key must be hex digits only (0-9, a-f)"
        case .rawKeyLength(let count):
            return "a raw key must be exactly 64 hex digits (key) or 96 (key and salt), not \(count)"
        case .rawKeyNotTaken(let scheme):
            return "the file is in \(scheme), which takes a passphrase, not a raw key"
        }
    }

    public var path: String? { nil }

    public var reason: FailureReason { .invalidKey }
}
