/// What can go wrong in a CipherKit operation, in terms a user can act on.
///
/// `message` is a lowercase phrase without a final period; `hint` says what to try, when
/// something helps. Neither ever holds key material.
public enum CipherKitError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The file does not exist.
    case fileNotFound(path: String)
    /// The path exists but is a directory or another non-regular file.
    case notARegularFile(path: String)
    /// The file exists where a new one was to be created.
    case fileExists(path: String)
    /// The file or its directory cannot be read or written; `reason` is the system's.
    case fileAccess(path: String, reason: String)
    /// The file could not be read as a database with the key and settings given.
    case cannotDecrypt(path: String, failure: DecryptFailure)
    /// Another connection holds a lock that the busy timeout did not outlast.
    case busy(path: String)
    /// An integrity check found problems.
    case integrityFailed(path: String, problems: [String])
    /// The linked SQLite has no SQLCipher 4 codec.
    case codecUnavailable(found: String)
    /// A write was interrupted and left a hot journal that only a read-write open with the
    /// key it was written under can roll back; a read-only open cannot.
    case hotJournal(path: String)
    /// A page failed to decrypt, failed its HMAC, or does not hold what SQLite expects.
    case damaged(path: String)
    /// A check of every page before any change found these pages damaged; nothing was changed.
    case damagedPages(path: String, pages: [DamagedPage])
    /// The operation was cancelled (SIGINT or SIGTERM) before it changed anything.
    case cancelled(path: String)
    /// Verification after a change found differences or damage; `problems` says what.
    case verificationFailed(path: String, problems: [String])
    /// The operation cannot be done as asked; `reason` says why and what to do instead.
    case refused(path: String, reason: String)
    /// Not enough free space for the temporary copy.
    case insufficientSpace(path: String, needed: Int, available: Int)
    /// A write ran out of space (a full disk, a quota, or a file-size limit) and was rolled
    /// back; `path` is the file being written.
    case outOfSpace(path: String)
    /// The file keeps no salt that can be read: a plaintext database, or a plaintext-header
    /// database whose salt was not given; `reason` says which.
    case noSalt(path: String, reason: String)
    /// SQLite failed on the database for another reason.
    case database(path: String, error: DatabaseError)
    /// The change was committed, so the file now opens with `opensWith` (which key, which
    /// settings), but a step after the commit failed; `problem` says which.
    case failedAfterCommit(path: String, opensWith: String, problem: String)

    public var message: String {
        switch self {
        case .fileNotFound(let path):
            return "'\(path)' does not exist"
        case .notARegularFile(let path):
            return "'\(path)' is not a regular file"
        case .fileExists(let path):
            return "'\(path)' already exists"
        case .fileAccess(let path, let reason):
            return "cannot access '\(path)': \(reason)"
        case .cannotDecrypt(let path, let failure):
            switch failure {
            case .wrongKeyOrSettings:
                return "cannot decrypt '\(path)': wrong key or cipher settings"
            case .noFormatMatched:
                return "cannot decrypt '\(path)': wrong key, or custom cipher settings (the SQLCipher 4, 3, 2 and 1 formats were tried)"
            case .wrongKeySettingsOrSalt:
                return "cannot decrypt '\(path)': wrong salt or key; the file has a plaintext header, so its salt is kept outside it"
            case .plaintextDatabase:
                return "cannot decrypt '\(path)': the file is a plaintext SQLite database, not an encrypted one"
            case .plaintextHeader:
                return "cannot decrypt '\(path)': the file has a SQLCipher plaintext header, so its salt is not in the file, and no salt was given"
            case .notADatabase(let reason):
                return "'\(path)' is not a SQLite or SQLCipher database: \(reason)"
            case .emptyFile:
                return "cannot decrypt '\(path)': the file is empty"
            case .tooShort(let bytes):
                return "cannot decrypt '\(path)': the file is too short to hold one database page (\(bytes) bytes)"
            case .keyRequired:
                return "'\(path)' is encrypted or not a database, and no key was given"
            }
        case .busy(let path):
            return "'\(path)' is locked by another connection"
        case .integrityFailed(let path, let problems):
            let first = problems.first.map { ", the first: " + ($0.split(separator: "\n").first.map(String.init) ?? $0) } ?? ""
            return "integrity check of '\(path)' failed: \(problems.count) problem\(problems.count == 1 ? "" : "s")" + first
        case .codecUnavailable(let found):
            return "the linked SQLite has no SQLCipher 4 codec (found \(found)); refusing to touch databases"
        case .hotJournal(let path):
            return "'\(path)' has a hot journal ('\(path)-journal') from an interrupted write, and a read-only open cannot roll it back"
        case .damaged(let path):
            return "'\(path)' is damaged: a page failed to decrypt or verify, or is malformed; nothing was changed"
        case .damagedPages(let path, let pages):
            let first = pages.first.map(\.summary) ?? "unknown"
            let count = pages.count == 1 ? "" : "\(pages.count) damaged pages, the first: "
            return "'\(path)' is damaged: " + count + first + "; nothing was changed"
        case .cancelled(let path):
            return "interrupted; '\(path)' is unchanged and no temporary file is left"
        case .verificationFailed(let path, let problems):
            return "verification of '\(path)' failed: " + problems.joined(separator: "; ")
        case .refused(let path, let reason):
            return "'\(path)': \(reason)"
        case .insufficientSpace(let path, let needed, let available):
            return "not enough free space beside '\(path)': \(needed) bytes needed, \(available) available"
        case .outOfSpace(let path):
            return "ran out of space writing '\(path)' (the disk is full, or a quota or file size limit was reached); nothing was changed"
        case .noSalt(let path, let reason):
            return "'\(path)' has no salt to read: \(reason)"
        case .database(let path, let error):
            return "'\(path)': \(error.message)"
        case .failedAfterCommit(let path, let opensWith, let problem):
            return "'\(path)' was changed and now opens with \(opensWith), but a step after the change failed: \(problem)"
        }
    }

    /// What the user can try, when something helps.
    public var hint: String? {
        switch self {
        case .fileNotFound:
            return "check the path; 'open --create' makes a new database"
        case .fileExists:
            return "choose another path, or remove the file first"
        case .cannotDecrypt(_, let failure):
            switch failure {
            case .wrongKeyOrSettings:
                return "check the key and its source; a database written with other settings needs --compat, --page-size, --kdf-iter, --hmac-algorithm or --kdf-algorithm"
            case .noFormatMatched:
                return "check the key and its source; a database written with custom settings needs them (--page-size, --kdf-iter, --hmac-algorithm, --kdf-algorithm)"
            case .wrongKeySettingsOrSalt:
                return "check the salt (--salt, --salt-file, or the last 32 digits of a 96-digit raw key) and --plaintext-header-size (default 32), then the key"
            case .plaintextDatabase:
                return "open it without any key option"
            case .plaintextHeader:
                return "give the salt from where it was stored with --salt HEX or --salt-file PATH (or a 96-digit raw key), and --plaintext-header-size N unless it is 32"
            case .keyRequired:
                return nil
            case .emptyFile, .tooShort, .notADatabase:
                return nil
            }
        case .busy:
            return "wait for the other process, or raise --busy-timeout"
        case .hotJournal:
            return "run the interrupted command again with the same keys (a read-write open with the key in use before rolls the journal back); keep the -journal file"
        case .codecUnavailable:
            return "install SQLCipher 4 (Scripts/bootstrap) and rebuild"
        case .damaged(let path), .damagedPages(let path, _):
            return "'cipherctl open \(path) --check' lists the damaged pages; 'cipherctl query' can still read the tables that are whole"
        case .failedAfterCommit:
            return "keep the new key: the data is under it now"
        case .outOfSpace:
            return "free space on that file system (or raise 'ulimit -f'), then run the command again; the original is unchanged"
        default:
            return nil
        }
    }

    public var description: String { message }

    /// The file the error is about, where there is one.
    public var path: String? {
        switch self {
        case .fileNotFound(let path), .notARegularFile(let path), .fileExists(let path), .fileAccess(let path, _),
             .cannotDecrypt(let path, _), .busy(let path), .integrityFailed(let path, _), .hotJournal(let path), .damaged(let path),
             .damagedPages(let path, _), .cancelled(let path), .verificationFailed(let path, _), .refused(let path, _),
             .insufficientSpace(let path, _, _), .outOfSpace(let path), .noSalt(let path, _), .database(let path, _),
             .failedAfterCommit(let path, _, _):
            return path.isEmpty ? nil : path
        case .codecUnavailable:
            return nil
        }
    }

    /// Whether the change was committed before the failure (the file is in its new state).
    public var isAfterCommit: Bool {
        if case .failedAfterCommit = self { return true }
        return false
    }

    /// `error` as `failedAfterCommit`, for a step that failed after the change was committed.
    public static func afterCommit(_ error: Error, path: String, opensWith: String) -> Error {
        if let error = error as? CipherKitError, error.isAfterCommit { return error }
        return CipherKitError.failedAfterCommit(path: path, opensWith: opensWith, problem: String(describing: error))
    }

    /// `error` as `outOfSpace(path:)` when it is a write that ran out of space, else `error`
    /// itself: an operation names the file it was writing, not the one it was reading.
    public static func namingOutOfSpace(_ error: Error, writing path: String) -> Error {
        switch error {
        case let error as DatabaseError where error.isOutOfSpace:
            return CipherKitError.outOfSpace(path: path)
        case CipherKitError.database(_, let error) where error.isOutOfSpace:
            return CipherKitError.outOfSpace(path: path)
        case CipherKitError.outOfSpace:
            return CipherKitError.outOfSpace(path: path)
        default:
            return error
        }
    }
}
