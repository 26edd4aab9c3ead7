/// Why an operation will not do what was asked, though the file and key are fine
/// (`CipherKitError.refused`).
public enum Refusal: Equatable, Sendable {
    /// The operation works on encrypted databases, and the file is a plaintext one.
    case plaintextSource
    /// A rekey to the key the database already has, with nothing else to change.
    case sameKey
    /// A new salt for a database with a plaintext header, whose salt lives outside the file.
    case newSaltOutsideFile
    /// A new database with a plaintext header and no chosen salt: a random one would be lost.
    case saltNotChosen
    /// A copy whose destination is the source file itself.
    case destinationIsSource
    /// A destination that is a symbolic link.
    case symbolicLink
    /// A -wal or -journal (named) beside a destination: SQLite would read it into the new
    /// file renamed there, as the log of the database it replaced.
    case destinationCompanion(String)
    /// An in-place rekey asked for a change of settings or salt (or of a SQLCipher 1 or 2
    /// file), which only a new copy can make.
    case changeNeedsCopy
    /// A rotation in place without a copy asked of pages without an HMAC (which tells a page
    /// under one key from one under the other) or with the salt outside the file.
    case rotationNeedsHMAC
    /// A roll-back asked where no rotation was interrupted.
    case nothingToUndo
    /// A rotation in place asked of a file with other hard links, whose names would not show
    /// its progress record.
    case rotationOfALinkedFile
    /// A roll-back asked of a rotation that had finished but for its record's removal.
    case rotationFinished
    /// A copy asked to keep its source's format, which is a scheme (named) SQLCipher does
    /// not write.
    case formatNotKept(String)

    public var message: String {
        switch self {
        case .plaintextSource:
            return "the file is a plaintext SQLite database"
        case .sameKey:
            return "the new key is the same as the current one"
        case .newSaltOutsideFile:
            return "the database has a plaintext header, so a new salt would have to be stored outside it"
        case .saltNotChosen:
            return "a database with a plaintext header keeps its salt outside the file, and no salt was chosen"
        case .destinationIsSource:
            return "the destination is the source itself"
        case .symbolicLink:
            return "the destination is a symbolic link"
        case .destinationCompanion(let companion):
            return "'\(companion)' lies beside the destination, the log of a database there, which SQLite would read into the new file"
        case .changeNeedsCopy:
            return "a change of cipher settings or salt (or of a SQLCipher 1 or 2 file) is written as a new copy, never in place"
        case .rotationNeedsHMAC:
            return "a rotation without a second copy needs pages with an HMAC and the salt in the file, whole pages"
        case .nothingToUndo:
            return "no interrupted rotation is recorded beside the file"
        case .rotationOfALinkedFile:
            return "the file has other hard links, beside which its progress record would not be seen"
        case .rotationFinished:
            return "the rotation had finished: the new key opens every page, and only its record is left"
        case .formatNotKept(let scheme):
            return "the source is \(scheme), which SQLCipher 4 does not write: its format cannot be kept"
        }
    }

    public var reason: FailureReason {
        switch self {
        case .plaintextSource: return .plaintextSource
        case .sameKey: return .sameKey
        case .newSaltOutsideFile: return .newSaltOutsideFile
        case .saltNotChosen: return .saltNotChosen
        case .destinationIsSource: return .destinationIsSource
        case .symbolicLink: return .symbolicLink
        case .destinationCompanion: return .destinationCompanion
        case .changeNeedsCopy: return .changeNeedsCopy
        case .rotationNeedsHMAC: return .rotationNeedsHMAC
        case .nothingToUndo: return .nothingToUndo
        case .rotationOfALinkedFile: return .rotationOfALinkedFile
        case .rotationFinished: return .rotationFinished
        case .formatNotKept: return .formatNotKept
        }
    }
}
