import FoundationEssentials
import Glibc

/// The file-system steps that make a replacement durable and safe: exclusive creation
/// without following links, fsync of files and directories, no-replace renames, identity
/// checks and free space.
public enum FileOperations {
    /// Creates an empty file with mode 0600; fails when anything (even a dangling link) is there.
    static func createExclusive(_ path: String) throws {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST || errno == ELOOP { throw CipherKitError.fileExists(path: path) }
            throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno)))
        }
        // 0600 whatever the umask: a key file under umask 0777 would be 0000 and unreadable.
        _ = fchmod(descriptor, 0o600)
        close(descriptor)
    }

    /// Flushes a file's data to disk.
    static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
    }

    /// Flushes a directory, so that a rename in it survives a power cut.
    static func syncDirectory(of path: String) throws {
        try sync(directory(of: path))
    }

    /// The directory that holds `path` (`.` for a bare name).
    ///
    /// Plain string work: NSString's path methods crash on Linux for some short names
    /// (`"3"`), which a user can type.
    public static func directory(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// The last component of `path`: its file name.
    public static func fileName(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// `name` inside `directory`.
    public static func path(_ name: String, in directory: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func withoutTrailingSlashes(_ path: String) -> Substring {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return trimmed
    }

    /// Moves `source` to `destination` atomically; without `replace`, fails if `destination` exists.
    static func move(_ source: String, to destination: String, replace: Bool) throws {
        if replace {
            guard rename(source, destination) == 0 else {
                throw CipherKitError.fileAccess(path: destination, reason: String(cString: strerror(errno)))
            }
            return
        }
        // link() fails with EEXIST atomically, where a check-then-rename would race.
        guard link(source, destination) == 0 else {
            if errno == EEXIST { throw CipherKitError.fileExists(path: destination) }
            throw CipherKitError.fileAccess(path: destination, reason: String(cString: strerror(errno)))
        }
        unlink(source)
    }

    /// Makes `destination` a second name (hard link) of `source`; fails if it exists.
    static func createLink(from source: String, to destination: String) throws {
        guard link(source, destination) == 0 else {
            if errno == EEXIST { throw CipherKitError.fileExists(path: destination) }
            throw CipherKitError.fileAccess(path: destination, reason: String(cString: strerror(errno)))
        }
    }

    /// The file a symbolic link at `path` names, resolved as SQLite resolves it to name the
    /// database's WAL; `path` itself when it is no link, or cannot be resolved.
    static func withoutSymbolicLinks(_ path: String) -> String {
        guard isSymbolicLink(path), let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` is a symbolic link.
    /// Whether `path` is a regular file itself (not through a symbolic link).
    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    static func isSymbolicLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    /// Whether something (a file, a directory, a link, even a dangling one) is at `path`.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Whether two paths name the same file (same device and inode), following links.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    /// Bytes free for an unprivileged user in the directory holding `path`.
    static func availableSpace(near path: String) -> Int? {
        var info = statvfs()
        guard statvfs(directory(of: path), &info) == 0 else { return nil }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// The largest file this process may write (`RLIMIT_FSIZE`, `ulimit -f`), or nil when unlimited.
    static func fileSizeLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// A failed write to `path` as a `CipherKitError`: `outOfSpace` for a full disk, a quota
    /// or a file-size limit, `fileAccess` with the system's reason otherwise.
    static func writeFailure(_ error: Error, path: String) -> Error {
        if error is CipherKitError { return error }
        guard let failure = error as? OpenFile.Failure else {
            return CipherKitError.fileAccess(path: path, reason: String(describing: error))
        }
        if [ENOSPC, EFBIG, EDQUOT].contains(failure.code) {
            return CipherKitError.outOfSpace(path: path)
        }
        return CipherKitError.fileAccess(path: path, reason: failure.reason)
    }

    /// Throws unless this process can create files in the directory holding `path`;
    /// `purpose` says what goes there.
    ///
    /// - Throws: `CipherKitError.fileAccess` naming the directory and the system's reason.
    static func requireWritableDirectory(for path: String, purpose: String) throws {
        let folder = directory(of: path)
        guard access(folder, W_OK) != 0 else { return }
        let reason = errno == ENOENT ? "no such directory" : String(cString: strerror(errno)).lowercased()
        throw CipherKitError.fileAccess(path: folder, reason: "the directory is not writable (\(reason)); \(purpose)")
    }

    /// Throws unless `path`, and its WAL when it has one, can be written by this process:
    /// a rekey writes the file itself (in place) or takes its write lock (by copy), so a dry
    /// run must refuse what the real run would.
    static func requireWritableFiles(of path: String) throws {
        for file in [path, path + "-wal"] where exists(file) {
            guard access(file, W_OK) != 0 else { continue }
            throw CipherKitError.fileAccess(path: file, reason: "the file is not writable (\(String(cString: strerror(errno)).lowercased()))")
        }
    }

    /// Whether this process can write the database at `path`, the -wal and -shm beside it
    /// that exist, and its folder (where SQLite makes a missing -shm or a journal).
    static func canWriteBeside(_ path: String) -> Bool {
        access(directory(of: path), W_OK) == 0 && [path, path + "-wal", path + "-shm"].allSatisfy { !exists($0) || access($0, W_OK) == 0 }
    }

    /// Whether another process holds SQLite's SHARED lock on the database at `path`: in WAL
    /// mode every open connection does, and leaving WAL mode (which a rekey does) then waits
    /// until they close. A test with `F_GETLK`, which takes no lock and never sees this
    /// process's own locks.
    /// See https://www.sqlite.org/lockingv3.html (the lock bytes at 0x40000000)
    static func isSharedByAnotherProcess(_ path: String) -> Bool {
        isLockedByAnotherProcess(path, start: 0x4000_0002, length: 510) ?? false
    }

    /// Waits, up to `milliseconds`, while another process holds the database at `path` open
    /// (`isSharedByAnotherProcess`); then it is busy.
    static func waitUntilNotShared(_ path: String, milliseconds: Int) throws {
        let deadline = Date().addingTimeInterval(Double(max(0, milliseconds)) / 1000)
        while isSharedByAnotherProcess(path) {
            guard Date() < deadline else { throw CipherKitError.busy(path: path) }
            usleep(10_000)
        }
    }

    /// Gives `path` the permission bits (and, where allowed, the owner) of `model`.
    static func copyPermissions(from model: String, to path: String) throws {
        var status = stat()
        guard stat(model, &status) == 0 else { throw CipherKitError.fileAccess(path: model, reason: String(cString: strerror(errno))) }
        guard chmod(path, status.st_mode & 0o7777) == 0 else {
            throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno)))
        }
        // Only root may give a file away; for anyone else the owner is already theirs.
        _ = chown(path, status.st_uid, status.st_gid)
    }

    /// Removes a database file and SQLite's companions of it.
    static func removeDatabase(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// The first `count` bytes of the file (fewer when it is shorter); nil when it cannot be read.
    static func leadingBytes(of path: String, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
        guard read >= 0 else { return nil }
        return Array(bytes.prefix(read))
    }

    /// The size of a file, or nil.
    static func size(of path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }

    /// Writes `contents` to a new file with mode 0600 (never over an existing file or through
    /// a link), fsyncs it and its directory.
    ///
    /// - Throws: `CipherKitError.fileExists` when anything is at `path`, `fileAccess` otherwise.
    public static func writeNew(_ path: String, contents: [UInt8]) throws {
        try contents.withUnsafeBytes { try writeNew(path, bytes: $0) }
    }

    /// `writeNew` of bytes the caller keeps (a key in locked memory): no copy of them is made.
    static func writeNew(_ path: String, bytes contents: UnsafeRawBufferPointer) throws {
        guard !contents.isEmpty, let base = contents.baseAddress else {
            // Nothing to be half-written: the name alone is the content (a mark).
            try createExclusive(path)
            try syncDirectoryOrRemove(path)
            return
        }
        // Written under a temporary name and linked into place, so that a kill never leaves a
        // half-written file under `path` (a salt file a rerun must read back); a killed run
        // leaves at most the temporary file, which the next run sweeps.
        if exists(path) || isSymbolicLink(path) { throw CipherKitError.fileExists(path: path) }
        let temporary = TemporaryDatabase.path(beside: path)
        do {
            try createExclusive(temporary)
        } catch CipherKitError.fileAccess(_, let reason) {
            throw CipherKitError.fileAccess(path: path, reason: reason)
        }
        defer { unlink(temporary) }
        do {
            guard let output = OpenFile(writing: temporary) else {
                throw CipherKitError.fileAccess(path: path, reason: "cannot open for writing")
            }
            try output.write(UnsafeRawBufferPointer(start: base, count: contents.count))
            try output.synchronize()
        } catch {
            throw (error as? CipherKitError) ?? writeFailure(error, path: path)
        }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { throw CipherKitError.fileExists(path: path) }
            throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno)))
        }
        try syncDirectoryOrRemove(path)
    }

    /// Flushes the directory of a file just made; when that fails, the file is removed again,
    /// so that a failure leaves nothing new behind.
    private static func syncDirectoryOrRemove(_ path: String) throws {
        do {
            try syncDirectory(of: path)
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Copies a file byte for byte into a new file (mode 0600, then the original's mode), fsynced.
    static func copy(_ source: String, to destination: String) throws {
        try createExclusive(destination)
        do {
            guard let input = OpenFile(reading: source), let output = OpenFile(writing: destination) else {
                throw CipherKitError.fileAccess(path: destination, reason: "cannot open for copying")
            }
            while case let chunk = try input.read(upTo: 1 << 20), !chunk.isEmpty {
                try chunk.withUnsafeBytes { try output.write($0) }
            }
            try output.synchronize()
            try copyPermissions(from: source, to: destination)
        } catch {
            unlink(destination)
            throw writeFailure(error, path: destination)
        }
    }
}
