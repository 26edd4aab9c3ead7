/// How a rekey changes a database.
public enum RekeyAction: String, Equatable, Sendable {
    /// `sqlite3_rekey_v2` re-encrypts every page in one transaction; settings and salt stay.
    case inPlace = "in-place"
    /// A verified copy with the new key and settings is renamed over the original.
    case exportAndReplace = "export-and-replace"
    /// The new key already opens the database with the target settings (an earlier run did
    /// the work, or was killed after its commit): nothing is rewritten; a journal mode an
    /// interrupted run left is put back, and the database is verified.
    case alreadyDone = "already-done"
    /// Every page rewritten in place, chunk by chunk, under a progress record: no second
    /// copy (`LowSpaceRotator`).
    case lowSpace = "low-space"
    /// An interrupted low-space rotation rolled back: every page under the old key again.
    case undone
}
