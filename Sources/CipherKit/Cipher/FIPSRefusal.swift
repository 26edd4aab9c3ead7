/// What FIPS mode will not do (`FIPSPolicy`).
public enum FIPSRefusal: CipherKitFailure, Equatable {
    /// PBKDF2 from a passphrase with fewer iterations than SP 800-132's 1,000.
    case kdfIterations(Int)
    /// A cipher other than SQLCipher's AES-256-CBC.
    case cipher(String)

    public var message: String {
        switch self {
        case .kdfIterations(let value):
            return "FIPS mode derives a passphrase's key with at least \(FIPSPolicy.minimumIterations) KDF iterations (SP 800-132), not \(value)"
        case .cipher(let name):
            return "FIPS mode runs only SQLCipher's AES-256-CBC through OpenSSL, not \(name)"
        }
    }

    public var path: String? { nil }

    public var reason: FailureReason { .fipsForbidden }
}
