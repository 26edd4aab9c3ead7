import CSnapshotVFS

/// The SQLite VFS of `Sources/CSnapshotVFS`: read-only connections that see a database's last
/// committed state and write nothing beside it. A -wal without its -shm is indexed in heap
/// memory (SQLite's own way for a -shm it may not write), a hot journal is rolled back in
/// memory instead of on disk, and a missing -wal is an empty stand-in instead of a new file.
/// See `SnapshotVFS.c` and https://www.sqlite.org/walformat.html#readonly
enum SnapshotVFS {
    /// The registered VFS's name, or nil when it could not be registered.
    static let name: String? = snapshotvfs_register().map { String(cString: $0) }
}
