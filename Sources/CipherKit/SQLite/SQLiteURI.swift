import Foundation

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
        /// `readonly_shm=1`: a WAL database read through its existing -wal and -shm, the
        /// -shm opened read-only, so that not even a reader's mark is written into it.
        case throughWAL
    }

    /// A URI that opens `path` as `untouched` says.
    static func untouched(_ path: String, _ how: Untouched) -> String {
        file(path) + (how == .fileAlone ? "?immutable=1" : "?readonly_shm=1")
    }

    /// `file:` and the absolute path, with the characters a URI reserves escaped.
    private static func file(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute)
    }
}
