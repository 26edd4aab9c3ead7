import Foundation

/// The mark an in-place rekey leaves beside a database while it has switched it from a
/// rollback journal to WAL mode: `NAME.cipherctl-tmp-PID-RANDOM-was-rollback`, an empty file.
///
/// A rekey killed in that window leaves the database whole (it opens with exactly one of the
/// keys) but in WAL mode. The mark is how a later rekey knows the database was not in WAL mode
/// before, and switches it back; that rekey removes and reports it. Other leftovers are swept
/// by any command, but a mark stays until a rekey has put the journal mode back.
public enum InterruptedRekey {
    static let suffix = "-was-rollback"

    /// Creates the mark (fsynced, with its directory); returns its path.
    static func mark(_ database: String) throws -> String {
        let marker = TemporaryDatabase.path(beside: database) + suffix
        try FileOperations.writeNew(marker, contents: [])
        return marker
    }

    /// Removes the mark.
    static func clear(_ marker: String) {
        unlink(marker)
    }

    /// Whether `path` is such a mark.
    static func isMark(_ path: String) -> Bool {
        path.hasSuffix(suffix)
    }

    /// The marks beside `database` left by processes that are gone.
    public static func marks(beside database: String) -> [String] {
        TemporaryDatabase.leftovers(beside: database, includingMarks: true).filter(isMark)
    }
}
