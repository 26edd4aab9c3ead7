/// A cipher setting outside what SQLCipher accepts.
public enum CipherSettingsError: CipherKitFailure, Equatable {
    case compatibility(Int)
    case pageSize(Int)
    case kdfIterations(Int)
    case fastKDFIterations(Int)
    case plaintextHeaderSize(Int)
    case saltLength(Int)
    /// Pages too small for SQLite once SQLCipher's reserved bytes are taken off.
    case usablePageSize(pageSize: Int, reserved: Int)
    /// A salt given beside a raw key that carries a different one.
    case saltDisagreesWithKey
    /// A salt given for a file that keeps another in its first 16 bytes, which the key opens.
    case saltDisagreesWithFile
    /// A plaintext header size given for a file whose first bytes are not SQLite's header.
    case noPlaintextHeader(Int)

    public var message: String {
        switch self {
        case .compatibility(let value):
            return "compatibility must be 1, 2, 3 or 4, not \(value)"
        case .pageSize(let value):
            return "page size must be a power of two from 512 to 65536, not \(value)"
        case .kdfIterations(let value):
            return "KDF iterations must be at least 1, not \(value)"
        case .fastKDFIterations(let value):
            return "HMAC key KDF iterations must be at least 1, not \(value)"
        case .plaintextHeaderSize(let value):
            return "plaintext header size must be 0 or a multiple of 16 smaller than the usable page size, not \(value)"
        case .usablePageSize(let pageSize, let reserved):
            return "a page size of \(pageSize) leaves \(pageSize - reserved) usable bytes after the \(reserved) that SQLCipher reserves per page for the IV and HMAC, and SQLite needs 480; use 1024 or more"
        case .noPlaintextHeader(let size):
            return "a plaintext header of \(size) bytes was given, but the file has none (its first bytes are not SQLite's header)"
        case .saltDisagreesWithKey:
            return "the salt given differs from the one the raw key carries (its last 32 hex digits); SQLCipher would use the key's"
        case .saltDisagreesWithFile:
            return "the salt given is not the file's: the key opens it with the salt in its first 16 bytes, which SQLCipher uses (give a salt only for a file with a plaintext header, or one whose salt bytes were lost)"
        case .saltLength(let count):
            return "a salt must be 16 bytes (32 hex digits), not \(count) bytes"
        }
    }

    public var path: String? { nil }

    public var reason: FailureReason { .invalidSettings }
}
