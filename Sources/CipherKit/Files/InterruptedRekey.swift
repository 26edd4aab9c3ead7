import FoundationEssentials
import Glibc

/// The mark a rekey leaves beside a database while it has the database in a journal mode
/// that is not its own: `NAME.cipherctl-tmp-PID-RANDOM-was-rollback` (an in-place rekey
/// switched a rollback-journal database to WAL) or `…-was-wal-mode` (a WAL database switched to
/// DELETE mode for a backup or a copy). An empty file, made before the journal mode changes.
///
/// A rekey killed in that window leaves the database whole (it opens with exactly one of the
/// keys) but in the wrong journal mode. The mark is how a later rekey knows the mode to put
/// back; that rekey removes and reports it. Other leftovers are swept by any command, but a
/// mark stays until a rekey has put the journal mode back.
public enum InterruptedRekey {
    static let rollbackSuffix = "-was-rollback"
    static let walSuffix = "-was-wal-mode"

    /// Creates the mark for a database whose own journal mode is `journal` (fsynced, with
    /// its directory); returns its path.
    /// The mark goes beside the file a symbolic link names, where SQLite puts the WAL, so a
    /// rerun through the link or the file's own name finds it.
    static func mark(_ database: String, journal: String) throws -> String {
        let marker = TemporaryDatabase.path(beside: FileOperations.withoutSymbolicLinks(database)) + (journal == "wal" ? walSuffix : rollbackSuffix)
        try FileOperations.writeNew(marker, contents: [])
        return marker
    }

    /// Removes the mark.
    static func clear(_ marker: String) {
        unlink(marker)
    }

    /// Whether `path` is such a mark.
    static func isMark(_ path: String) -> Bool {
        path.hasSuffix(rollbackSuffix) || path.hasSuffix(walSuffix)
    }

    /// The journal mode the marks say the database had: `wal`, `delete`, or nil without marks.
    static func originalJournal(_ marks: [String]) -> String? {
        guard let last = marks.last else { return nil }
        return last.hasSuffix(walSuffix) ? "wal" : "delete"
    }

    /// The marks beside `database` left by processes that are gone.
    public static func marks(beside database: String) -> [String] {
        let resolved = FileOperations.withoutSymbolicLinks(database)
        let places = resolved == database ? [database] : [resolved, database]
        return places.flatMap { TemporaryDatabase.leftovers(beside: $0, includingMarks: true).filter(isMark) }
    }
}
