import FoundationEssentials
import Glibc

/// Looks at one path for an audit, and never writes: not the file, not a journal, not a WAL.
///
/// The file is opened without blocking (a FIFO is never opened at all) and held with a
/// reader's SHARED lock (`ReaderLock`), so a writer in a rollback-journal mode
/// waits while it is read. SQLite then reads its last committed state through `SnapshotVFS`,
/// which creates no -wal or -shm file and rolls a hot journal back in memory only
/// (`SQLiteURI.Untouched.snapshot`). Every problem becomes a fact of the `FileAudit`; nothing
/// is thrown.
public enum FileAuditor {
    public static func audit(_ path: String, request: AuditRequest) -> FileAudit {
        var audit = FileAudit(path: path, kind: .missing)
        guard let status = status(of: path, into: &audit) else { return audit }
        audit.mode = UInt32(status.st_mode) & 0o7777
        audit.ownerID = status.st_uid
        audit.groupID = status.st_gid
        audit.size = Int(status.st_size)
        guard status.st_mode & S_IFMT == S_IFREG else {
            audit.kind = .notRegularFile
            return audit
        }
        let lock: ReaderLock
        do {
            lock = try ReaderLock(path: path, waitingMilliseconds: request.busyTimeoutMilliseconds)
        } catch CipherKitError.busy {
            // What the header alone says, since a writer is changing the rest.
            let bytes = FileOperations.leadingBytes(of: path, count: 100) ?? []
            audit.kind = !bytes.starts(with: DatabaseFile.sqliteMagic) ? .encrypted : bytes.count > 20 && bytes[20] > 0 ? .plaintextHeader : .plaintext
            audit.failure = .busy
            audit.problem = "a writer held it for longer than the busy timeout"
            return audit
        } catch CipherKitError.fileAccess(_, let reason) {
            return .unreadable(path, reason: reason)
        } catch {
            return .unreadable(path, reason: String(describing: error))
        }
        // The lock stays until the look is over.
        return withExtendedLifetime(lock) { look(path, lock: lock, request: request, audit: audit) }
    }

    private static func look(_ path: String, lock: ReaderLock, request: AuditRequest, audit: FileAudit) -> FileAudit {
        var audit = audit
        lookBeside(path, lock: lock, into: &audit)
        let file: DatabaseFile
        do {
            file = try DatabaseFile.probe(path)
        } catch {
            return .unreadable(path, reason: (error as? CipherKitError)?.message ?? String(describing: error))
        }
        classify(file, header: FileOperations.leadingBytes(of: path, count: 100) ?? [], into: &audit)
        if request.key != nil, audit.kind == .encrypted || audit.kind == .plaintextHeader {
            openWithKey(file, request: request, into: &audit)
        }
        // A SQLite3 Multiple Ciphers file: whether the key opens its first page, and with which settings.
        if file.kind == .sqlite3MultipleCiphers { tryKeyOfOtherFamily(file, request: request, into: &audit) }
        return audit
    }

    /// The path's status, following a symbolic link (whose target is noted); nil when there
    /// is nothing to look at, with the `FileAudit` saying why.
    private static func status(of path: String, into audit: inout FileAudit) -> stat? {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno != ENOENT, errno != ENOTDIR { audit = .unreadable(path, reason: String(cString: strerror(errno))) }
            return nil
        }
        if status.st_mode & S_IFMT == S_IFLNK {
            audit.symlinkTarget = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? ""
            guard stat(path, &status) == 0 else {
                if errno != ENOENT, errno != ENOTDIR { audit.kind = .unreadable; audit.problem = String(cString: strerror(errno)) }
                return nil
            }
        }
        return status
    }

    /// The kind the file's bytes show, the journal mode of a plaintext file from its header,
    /// and a SQLite header that is damaged.
    private static func classify(_ file: DatabaseFile, header: [UInt8], into audit: inout FileAudit) {
        switch file.kind {
        case .plaintext: audit.kind = .plaintext
        case .plaintextHeader: audit.kind = .plaintextHeader
        case .opaque: audit.kind = .encrypted
        case .sqlite3MultipleCiphers:
            audit.kind = .sqlite3mc
            audit.problem = "SQLCipher cannot read it: " + file.schemeDescription
        case .empty: audit.kind = .empty
        case .missing: audit.kind = .missing
        case .notRegularFile: audit.kind = .notRegularFile
        case .tooShort, .notADatabase: audit.kind = .notADatabase
        }
        audit.family = file.family
        if file.kind == .notADatabase, header.starts(with: DatabaseFile.sqliteMagic) {
            audit.failure = .damaged
            audit.problem = file.foreignReason
        }
        if audit.kind == .plaintext || audit.kind == .plaintextHeader || audit.kind == .sqlite3mc {
            audit.journalMode = journalMode(formatBytes: Array(header.dropFirst(18).prefix(2)))
        }
    }

    /// `wal` when the header's read and write format versions (bytes 18 and 19) are 2,
    /// else `rollback`. See https://www.sqlite.org/fileformat2.html#file_format_version_numbers
    static func journalMode(formatBytes: [UInt8]) -> String? {
        guard formatBytes.count == 2 else { return nil }
        return formatBytes == [2, 2] ? "wal" : "rollback"
    }
}
