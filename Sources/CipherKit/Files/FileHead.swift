import Glibc

/// The first 64 KiB of a database file (page 1 at the largest page size), read once for
/// everything that looks at page 1 without SQLite while a key is sought: the settings
/// search, the -wal's page-1 check and the explanations of a failed search. A later look
/// reads it again once the file changed: another inode, size or change time, or other first
/// 512 bytes (read each time: a change time can stay within one clock tick, but an encrypted
/// page 1 written again has a new IV, so its first bytes change).
enum FileHead {
    /// How many bytes are read again to see that page 1 is unchanged.
    private static let checked = 512

    /// How many bytes are read.
    static let count = 65536

    private struct Stamp: Equatable {
        let path: String
        let device: UInt, inode: UInt, size: Int, changed: timespec

        static func == (a: Stamp, b: Stamp) -> Bool {
            a.path == b.path && a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }
    }

    private static let lock = Lock()
    /// The last few reads; a batch's threads each look at their own file.
    nonisolated(unsafe) private static var recent: [(stamp: Stamp, bytes: [UInt8])] = []

    /// The file's first `count` bytes (fewer when it is shorter); nil when it cannot be read.
    static func bytes(of path: String) -> [UInt8]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let stamp = Stamp(
            path: path, device: UInt(status.st_dev), inode: UInt(status.st_ino), size: Int(status.st_size), changed: status.st_ctim)
        if let hit = lock.withLock({ recent.first { $0.stamp == stamp }?.bytes }),
           FileOperations.leadingBytes(of: path, count: checked) == Array(hit.prefix(checked)) {
            return hit
        }
        guard let read = FileOperations.leadingBytes(of: path, count: count) else { return nil }
        lock.withLock {
            recent.removeAll { $0.stamp.path == path }
            recent.append((stamp, read))
            if recent.count > 8 { recent.removeFirst() }
        }
        return read
    }
}
