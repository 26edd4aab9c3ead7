/// The one way a failed write (an import, a query that writes) ends: rolled back on its own
/// connection before it closes. When a write fails for want of space (or any I/O error),
/// SQLite puts the pager in its error state and its rollback does nothing but leave the
/// journal hot, for the next reader to play back; closed that way, the database would be
/// left with a hot journal beside it, which every read-only open refuses. A read on the same
/// connection makes SQLite play the journal back (it needs no new space: the pages go where
/// they were, the file shrinks, the journal is deleted), and the read succeeds only once it
/// has. See https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction
/// and https://www.sqlite.org/fileformat2.html#hot_journals
extension Connection {
    /// Rolls back whatever the failed write left; false when a hot journal is still beside
    /// the file (it is then left for the next read-write open to play back).
    func rollBackFailedWrite() -> Bool {
        if !isAutocommit { try? execute("ROLLBACK") }
        if (try? scalar("SELECT count(*) FROM sqlite_master")) != nil, isAutocommit { return true }
        // The read can fail for the write's own reason (a damaged page): that error stands,
        // unless a journal is left to say the file is not as it was.
        return !FileOperations.journalHoldsTransaction(beside: path)
    }
}
