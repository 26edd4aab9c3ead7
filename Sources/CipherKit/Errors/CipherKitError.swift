/// What can go wrong in a CipherKit operation, as facts about the file.
///
/// `message` is a lowercase phrase without a final period that names no command or flag
/// and never holds key material; what to try next is the front end's to say, by `reason`.
/// SQLite's result codes become these errors in one place (`CipherKitError+SQLite.swift`).
public enum CipherKitError: CipherKitFailure, Equatable {
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
    /// A write failed and could not be rolled back on its own connection; its journal is
    /// left hot beside the file for the next read-write open to roll back.
    case rollbackPending(path: String)
    /// A page failed to decrypt, failed its HMAC, or does not hold what SQLite expects.
    case damaged(path: String)
    /// A check of every page before any change found these pages damaged; nothing was changed.
    case damagedPages(path: String, pages: [DamagedPage])
    /// The operation was cancelled (SIGINT or SIGTERM) before it changed anything.
    case cancelled(path: String)
    /// Verification after a change found differences or damage; `problems` says what.
    case verificationFailed(path: String, problems: [String])
    /// The operation will not do what was asked; `refusal` says why.
    case refused(path: String, refusal: Refusal)
    /// Not enough free space for the temporary copy.
    case insufficientSpace(path: String, needed: Int, available: Int)
    /// Not enough memory for work that holds the whole database in memory.
    case insufficientMemory(path: String, needed: Int, available: Int)
    /// A write ran out of space (a full disk, a quota, or a file-size limit) and was rolled
    /// back; `path` is the file being written.
    case outOfSpace(path: String)
    /// The file keeps no salt that can be read: a plaintext database, or a plaintext-header
    /// database whose salt was not given; `reason` says which.
    case noSalt(path: String, reason: String)
    /// OpenSSL failed at `operation` (key derivation, an HMAC), for no reason the file shows.
    case crypto(operation: String)
    /// SQLite failed on the database for another reason.
    case database(path: String, error: DatabaseError)
    /// The change was committed, so the file now opens with `opensWith` (which key, which
    /// settings), but a step after the commit failed; `problem` says which.
    case failedAfterCommit(path: String, opensWith: String, problem: String)
    /// A rotation in place was interrupted (`problem` says by what, when this run saw it):
    /// the file holds pages under both keys, and its progress record is beside it.
    case halfRotated(path: String, problem: String?)

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
            return failure.message(for: path)
        case .busy(let path):
            return "'\(path)' is locked by another connection"
        case .integrityFailed(let path, let problems):
            let first = problems.first.map { ", the first: " + ($0.split(separator: "\n").first.map(String.init) ?? $0) } ?? ""
            return "integrity check of '\(path)' failed: \(problems.count) problem\(problems.count == 1 ? "" : "s")" + first
        case .codecUnavailable(let found):
            return "the linked SQLite has no SQLCipher 4 codec (found \(found)); refusing to touch databases"
        case .hotJournal(let path):
            return "'\(path)' has a hot journal ('\(FileOperations.withoutSymbolicLinks(path))-journal') from an interrupted write, and a read-only open cannot roll it back"
        case .rollbackPending(let path):
            return "a write to '\(path)' failed and could not be rolled back; its journal ('\(path)-journal') is left for the next read-write open to roll back"
        case .damaged(let path):
            return "'\(path)' is damaged: a page failed to decrypt or verify, or is malformed; nothing was changed"
        case .damagedPages(let path, let pages):
            let first = pages.first.map(\.summary) ?? "unknown"
            // A run of missing pages is one entry and many pages.
            let total = pages.reduce(0) { $0 + ($1.lastPage ?? $1.page) - $1.page + 1 }
            let count = pages.count == 1 ? "" : "\(total) damaged pages, the first: "
            return "'\(path)' is damaged: " + count + first + "; nothing was changed"
        case .cancelled(let path):
            return "interrupted; '\(path)' is unchanged and no temporary file is left"
        case .verificationFailed(let path, let problems):
            // A copy of a damaged file can fail on every row: the first few, and how many more.
            let shown = problems.prefix(3).joined(separator: "; ")
            let more = problems.count > 3 ? " (and \(problems.count - 3) more)" : ""
            return "verification of '\(path)' failed: " + shown + more
        case .refused(let path, let refusal):
            return "'\(path)': \(refusal.message)"
        case .crypto(let operation):
            return "OpenSSL failed: \(operation)"
        case .insufficientMemory(let path, let needed, let available):
            return "'\(path)' is too large for the memory available: this holds it in memory whole, \(needed) bytes, and \(available) are available"
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
        case .halfRotated(let path, let problem):
            let record = FileOperations.withoutSymbolicLinks(path) + RotationRecord.suffix
            return "'\(path)' is half-rotated: an interrupted rotation in place may have left pages under both keys, recorded in '\(record)'" + (problem.map { " (\($0))" } ?? "")
        }
    }

    public var path: String? {
        switch self {
        case .fileNotFound(let path), .notARegularFile(let path), .fileExists(let path), .fileAccess(let path, _),
             .cannotDecrypt(let path, _), .busy(let path), .integrityFailed(let path, _), .hotJournal(let path), .rollbackPending(let path), .damaged(let path),
             .damagedPages(let path, _), .cancelled(let path), .verificationFailed(let path, _), .refused(let path, _),
             .insufficientSpace(let path, _, _), .insufficientMemory(let path, _, _), .outOfSpace(let path), .noSalt(let path, _), .database(let path, _),
             .failedAfterCommit(let path, _, _), .halfRotated(let path, _):
            return path.isEmpty ? nil : path
        case .codecUnavailable, .crypto:
            return nil
        }
    }

    /// Why a plaintext-header database shows no salt (`noSalt`).
    static let saltKeptOutside = "it has a plaintext header, so its salt is kept outside the file"

    public var reason: FailureReason {
        switch self {
        case .fileNotFound: return .fileNotFound
        case .notARegularFile: return .notARegularFile
        case .fileExists: return .fileExists
        case .fileAccess: return .fileAccess
        case .cannotDecrypt(_, let failure): return failure.reason
        case .busy: return .busy
        case .integrityFailed: return .integrityFailed
        case .codecUnavailable: return .codecUnavailable
        case .hotJournal, .rollbackPending: return .hotJournal
        case .damaged, .damagedPages: return .damaged
        case .cancelled: return .cancelled
        case .verificationFailed: return .verificationFailed
        case .refused(_, let refusal): return refusal.reason
        case .insufficientSpace: return .insufficientSpace
        case .insufficientMemory: return .insufficientMemory
        case .outOfSpace: return .outOfSpace
        // The one `noSalt` that a salt given from outside the file would mend.
        case .noSalt(_, let why): return why == Self.saltKeptOutside ? .saltOutsideFile : .noSalt
        case .crypto: return .cryptoFailure
        case .database: return .sqliteError
        case .failedAfterCommit: return .failedAfterCommit
        case .halfRotated: return .halfRotated
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
