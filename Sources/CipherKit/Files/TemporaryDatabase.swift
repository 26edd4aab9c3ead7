import FoundationEssentials
import Glibc

/// The temporary copy an export or a settings-changing rekey writes beside its target
/// before renaming it into place.
///
/// Its name, `NAME.cipherctl-tmp-PID-RANDOM`, says what it is and which process made it,
/// so it is never taken for the database, and a later run on the same target can remove
/// one whose process is gone.
public enum TemporaryDatabase {
    static let marker = ".cipherctl-tmp-"

    /// A new, unused temporary path beside `target`.
    static func path(beside target: String) -> String {
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return target + marker + "\(getpid())-" + random
    }

    /// Whether `path` is one of these temporary files.
    public static func isTemporary(_ path: String) -> Bool {
        FileOperations.fileName(of: path).contains(marker)
    }

    /// Temporary files beside `target` left by processes that no longer run. The marks of
    /// interrupted in-place rekeys (`InterruptedRekey`) are left out unless `includingMarks`:
    /// only a rekey, which puts the journal mode back, removes them.
    public static func leftovers(beside target: String, includingMarks: Bool = false) -> [String] {
        let directory = FileOperations.directory(of: target)
        let prefix = FileOperations.fileName(of: target) + marker
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        // A companion (-journal, -wal, -shm) stands for its database, even when only it is left.
        let databases = Set(names.filter { $0.hasPrefix(prefix) }.map { name in
            ["-journal", "-wal", "-shm"].first { name.hasSuffix($0) }.map { String(name.dropLast($0.count)) } ?? name
        })
        return databases.filter { name in
            if !includingMarks, InterruptedRekey.isMark(name) { return false }
            let rest = name.dropFirst(prefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ Int32($0) }) else { return true }
            return kill(pid, 0) != 0 && errno == ESRCH
        }
            .sorted().map { directory == "." && !target.hasPrefix("./") ? $0 : FileOperations.path($0, in: directory) }
    }

    /// Removes the leftovers beside `target`, telling `told` of each; returns the paths removed.
    public static func removeLeftovers(beside target: String, told: LeftoverListener? = nil) -> [String] {
        let found = leftovers(beside: target)
        for path in found {
            FileOperations.removeDatabase(path)
            told?(path)
        }
        return found
    }
}
