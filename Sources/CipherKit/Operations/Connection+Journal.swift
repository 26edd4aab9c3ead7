/// The journal-mode changes that rekey and plaintext-header make around their work, in one
/// place. They sit with the operations, not in `SQLite/`, because they speak in the
/// operations' terms: a checkpoint that a reader blocks is `CipherKitError.busy` for the
/// database being changed.
extension Connection {
    /// The main database's journal mode, lowercased.
    func journalMode() throws -> String {
        (try pragmaText("journal_mode") ?? "delete").lowercased()
    }

    /// Copies the WAL into the database file and empties it; busy when a reader holds it.
    func checkpointWAL() throws {
        let result = try rows("PRAGMA wal_checkpoint(TRUNCATE)").first ?? []
        if result.first == .integer(1) { throw CipherKitError.busy(path: path) }
    }

    /// Checkpoints a database in `journal` mode "wal" into its main file and switches it to
    /// DELETE mode; any other mode is left as it is.
    func leaveWAL(from journal: String) throws {
        guard journal == "wal" else { return }
        // Another process's connection keeps the mode from changing: a checkpoint first would
        // change its file and empty its -wal for a run that then ends busy.
        try waitUntilNoOtherProcessHoldsIt()
        try checkpointWAL()
        guard try pragmaText("journal_mode = DELETE")?.lowercased() == "delete" else {
            throw CipherKitError.busy(path: path)
        }
    }

    /// Waits, up to the busy timeout, while another process holds the database open: before
    /// a checkpoint made only to leave WAL or rewrite the file, which that process would stop.
    func waitUntilNoOtherProcessHoldsIt() throws {
        try FileOperations.waitUntilNotShared(path, milliseconds: busyTimeoutMilliseconds)
    }

    /// Switches the database back to WAL mode when `journal`, the mode it had, was "wal".
    func restoreWAL(_ journal: String) throws {
        guard journal == "wal" else { return }
        _ = try pragmaText("journal_mode = WAL")
    }

    /// Switches the database to WAL mode; busy when another connection keeps it from it.
    func enterWAL() throws {
        guard try pragmaText("journal_mode = WAL")?.lowercased() == "wal" else {
            throw CipherKitError.busy(path: path)
        }
    }

    /// Puts back the journal mode an interrupted run's marks record (`InterruptedRekey`);
    /// without marks, does nothing. Used by every operation that leaves a mark.
    func putJournalBack(marks: [String]) throws {
        guard let original = InterruptedRekey.originalJournal(marks) else { return }
        setCheckpointOnClose(true)
        try restoreJournal(original)
    }

    /// Puts the database in `original`, its own journal mode ("wal" or "delete"), from
    /// whichever of the two it is in now.
    func restoreJournal(_ original: String) throws {
        let current = try journalMode()
        if original == "wal" {
            if current != "wal" { try enterWAL() }
        } else {
            try leaveWAL(from: current)
        }
    }
}
