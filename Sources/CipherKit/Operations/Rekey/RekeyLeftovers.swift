/// What interrupted earlier runs left beside a database, found before a rekey starts.
struct RekeyLeftovers {
    /// Marks of runs killed while the database was not in its own journal mode (`InterruptedRekey`).
    var marks: [String] = []
    /// Temporary files of earlier runs, removed.
    var removed: [String] = []

    /// The journal mode the marks say the database had; nil without marks.
    var originalJournal: String? { InterruptedRekey.originalJournal(marks) }

    /// Whether an in-place rekey of a rollback-journal database was interrupted: its rerun
    /// runs in place too, so that SQLite's own transaction clears what the killed one left
    /// (a WAL, an empty journal) beside the file.
    var interruptedInPlace: Bool { marks.contains { $0.hasSuffix(InterruptedRekey.rollbackSuffix) } }

    /// Finds the marks beside `path` and removes the other leftovers; a dry run touches nothing.
    static func collect(beside path: String, dryRun: Bool, told: LeftoverListener?) -> RekeyLeftovers {
        guard !dryRun else { return RekeyLeftovers() }
        return RekeyLeftovers(marks: InterruptedRekey.marks(beside: path), removed: TemporaryDatabase.removeLeftovers(beside: path, told: told))
    }
}
