import Foundation

/// Which argument after an option with an optional value is taken as its value.
///
/// Each kind is one that cannot be mistaken for the command's other arguments: a database
/// path exists, a backup path must not; a salt is 32 hex digits; a size is digits.
enum FollowingValue: Equatable {
    /// Only `--opt=VALUE` gives a value.
    case none
    /// Digits: `--size 64`.
    case digits
    /// 32 hex digits: `--new-salt 00112233…`.
    case salt
    /// A path that does not exist yet: `--backup old.db` (a database to work on exists).
    case newPath

    /// Whether `argument` is this option's value.
    func accepts(_ argument: String) -> Bool {
        guard !argument.isEmpty, !argument.hasPrefix("-") else { return false }
        switch self {
        case .none: return false
        case .digits: return argument.allSatisfy { $0.isASCII && $0.isNumber }
        case .salt: return argument.count == 32 && argument.allSatisfy(\.isHexDigit)
        case .newPath: return !FileManager.default.fileExists(atPath: argument)
        }
    }
}
