/// What an audit saw of one path: facts only; `AuditPolicy` turns them into findings.
public struct FileAudit: Equatable, Sendable {
    public var path: String
    public var kind: AuditedKind
    /// Where the path's symbolic link points, when it is one.
    public var symlinkTarget: String?
    /// The permission bits (`0o640`), for anything that exists.
    public var mode: UInt32?
    public var ownerID: UInt32?
    public var groupID: UInt32?
    public var size = 0
    /// Why the file or folder could not be read or opened, in the library's words.
    public var problem: String?
    /// With a key: whether it opened the file (nil when no key was tried).
    public var opened: Bool?
    /// When the key did not open it: the reason (`FailureReason`'s raw value).
    public var failure: FailureReason?
    /// The SQLCipher format found (`SQLCipher 4`), or nil for custom settings.
    public var formatName: String?
    /// The cipher settings in effect, once the key opened the file.
    public var settings: CipherSettings?
    /// The kind of key that opened it: a raw key needs no KDF.
    public var keyKind: KeyMaterial.Kind?
    /// The family of encrypted file its bytes show (`DatabaseFile.family`), `sqlcipher` once a
    /// key opened a file that looked random; nil for a file that is no encrypted database.
    public var family: String?
    /// The label of the key ring entry that opened the file, when the caller chose its key
    /// from a ring (`KeyChooser`); never the key.
    public var keyLabel: String?
    /// `wal` or `rollback`, from the header's format bytes, when they could be read.
    public var journalMode: String?
    /// Whether a `-wal` file is beside it.
    public var walFile = false
    /// Whether a hot journal is beside it: a `-journal` of an interrupted write that no
    /// writer holds.
    public var hotJournal = false
    /// Whether the progress record of a rotation in place is beside it: pages under two keys.
    public var halfRotated = false
    /// Temporary files and marks of interrupted cipherctl runs beside it.
    public var leftovers: [String] = []
    /// What a full check (`AuditRequest.checksIntegrity`) found wrong, one line a problem.
    public var integrityProblems: [String]?

    public init(path: String, kind: AuditedKind) {
        self.path = path
        self.kind = kind
    }

    /// Whether it holds a database, as far as its bytes show: plaintext, encrypted, or with a
    /// damaged SQLite header. The permission policy looks at these only.
    public var isDatabase: Bool {
        kind == .plaintext || kind == .sqlcipher || kind == .encrypted || kind == .plaintextHeader || failure == .damaged
    }

    /// A folder or file that could not be read, with the reason.
    public static func unreadable(_ path: String, reason: String) -> FileAudit {
        var audit = FileAudit(path: path, kind: .unreadable)
        audit.problem = reason
        return audit
    }
}
