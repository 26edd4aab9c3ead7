import FoundationEssentials
import Glibc

/// Expands an audit's paths into the files to look at: each path as given, and with
/// `recursive` everything under a folder, in name order. A symbolic link inside a folder is
/// looked at but never followed into another folder, so a loop cannot trap the walk. A
/// database's -wal, -shm and -journal, and the temporary files of cipherctl runs beside it,
/// are reported with the database, not as files of their own.
public enum AuditWalker {
    /// The targets, or the first path that is a folder when `recursive` is not set.
    public static func targets(_ paths: [String], recursive: Bool) -> (targets: [AuditTarget], folder: String?) {
        var targets: [AuditTarget] = []
        for path in paths {
            guard isFolder(path, following: true) else {
                targets.append(.file(path))
                continue
            }
            guard recursive else { return ([], path) }
            walk(path, into: &targets)
        }
        return (targets, nil)
    }

    private static func walk(_ folder: String, into targets: inout [AuditTarget]) {
        let names: [String]
        switch list(folder) {
        case .success(let listed): names = listed
        case .failure(let reason):
            targets.append(.unreadableFolder(folder, reason: reason.message))
            return
        }
        let present = Set(names)
        for name in names.sorted() where !isCompanion(name, of: present) {
            let path = FileOperations.path(name, in: folder)
            if isFolder(path, following: false) {
                walk(path, into: &targets)
            } else {
                targets.append(.file(path))
            }
        }
    }

    /// Whether `name` belongs to a database in the same folder: its -wal, -shm or -journal,
    /// or a cipherctl temporary file or mark beside it.
    static func isCompanion(_ name: String, of names: Set<String>) -> Bool {
        for suffix in ["-wal", "-shm", "-journal"] where name.hasSuffix(suffix) {
            if names.contains(String(name.dropLast(suffix.count))) { return true }
        }
        if let marker = name.firstRange(of: TemporaryDatabase.marker), names.contains(String(name[..<marker.lowerBound])) {
            return true
        }
        return false
    }

    private static func isFolder(_ path: String, following: Bool) -> Bool {
        var status = stat()
        let found = following ? stat(path, &status) : lstat(path, &status)
        return found == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    private struct ListingError: Error {
        let message: String
    }

    /// The names in `folder` but `.` and `..`.
    private static func list(_ folder: String) -> Result<[String], ListingError> {
        guard let directory = opendir(folder) else { return .failure(ListingError(message: String(cString: strerror(errno)))) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return .success(names)
    }
}
