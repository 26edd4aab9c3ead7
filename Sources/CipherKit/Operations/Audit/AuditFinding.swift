/// One problem an audit reports for a file: a stable code and a sentence saying what was seen.
public struct AuditFinding: Equatable, Sendable {
    /// The kinds of finding; the raw values are what scripts see, and never change meaning.
    public enum Code: String, CaseIterable, Sendable {
        // Always reported.
        case unreadable
        case missing
        case damaged
        case cannotOpen = "cannot-open"
        case hotJournal = "hot-journal"
        case halfRotated = "half-rotated"
        case leftovers
        case busy
        // Reported under a policy option.
        case plaintext
        case mode
        case kdfIterations = "kdf-iter"
        case noHMAC = "no-hmac"
        case algorithm
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
