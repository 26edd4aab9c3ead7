import FoundationEssentials

/// `file:` URIs for SQLite, for reads that must leave every file exactly as it was, which a
/// plain path cannot ask for. See https://www.sqlite.org/uri.html
enum SQLiteURI {
    /// How a read leaves the files alone.
    enum Untouched {
        /// `immutable=1`: the database file alone, without locks; no -wal or -shm is created
        /// and no WAL or journal is read. Only for a file nothing changes while it is read, or
        /// one whose readers' lock the caller holds itself.
        /// See https://www.sqlite.org/uri.html#uriimmutable
        case fileAlone
        /// The last committed state, through `SnapshotVFS`: a -wal with or without its -shm
        /// (a -shm is opened read-only, `readonly_shm=1`, so not even a reader's mark is
        /// written into it), a hot journal rolled back in memory. Nothing is created.
        case snapshot
        /// `snapshot`, for a connection that lives inside this process's reader lock on the
        /// file (`ReaderLock`): it takes no SHARED lock of its own (`snapshot_locked=1`). A
        /// reader passes the PENDING byte to take SHARED, and a writer that holds PENDING
        /// while it waits for the reader lock to go would leave both waiting on each other.
        case lockedSnapshot
        /// `snapshot` on a connection that may still write the databases it attaches (a copy's
        /// destination): the connection is read-write and the file is opened read-only
        /// (`mode=ro`), for a source this process cannot write beside.
        case snapshotAttachingWritable
    }

    /// A URI that opens `path` as `untouched` says. `encrypted` (a key is given) makes a
    /// snapshot's read of a whole page of zeros inside the file damage (`SQLITE_CORRUPT`),
    /// which SQLCipher's pager would serve as zeros.
    static func untouched(_ path: String, _ how: Untouched, encrypted: Bool = false) -> String {
        let query = switch how {
        case .fileAlone: "?immutable=1"
        case .snapshot: "?readonly_shm=1"
        case .lockedSnapshot: "?readonly_shm=1&snapshot_locked=1"
        case .snapshotAttachingWritable: "?readonly_shm=1&mode=ro"
        }
        return file(path) + query + (encrypted && how != .fileAlone ? "&snapshot_encrypted=1" : "")
    }

    /// The VFS a connection opened as `how` says must use; nil for the default.
    static func vfs(for how: Untouched) -> String? {
        how == .fileAlone ? nil : SnapshotVFS.name
    }

    /// A URI that opens `path` through the default VFS, for a database attached to a
    /// connection whose own VFS is another (`SnapshotVFS`).
    static func defaultVFS(_ path: String) -> String {
        file(path) + "?vfs=unix"
    }

    /// `file:` and the absolute path, with the characters a URI reserves escaped.
    private static func file(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return "file:" + percentEncoded(absolute)
    }

    /// Every UTF-8 byte outside Foundation's `urlPathAllowed` (less `?`, `#` and `%`) as `%XX`.
    private static func percentEncoded(_ path: String) -> String {
        let allowed = Set("!$&'()*+,-./0123456789:=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~".utf8)
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in path.utf8 {
            if allowed.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
