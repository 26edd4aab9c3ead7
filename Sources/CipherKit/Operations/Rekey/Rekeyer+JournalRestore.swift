/// Putting a database's journal mode back after a failure, on a connection of its own.
extension Rekeyer {
    /// Closes `connection` and, on a new one with `key`, puts the journal mode back to
    /// `originalJournal` (copying a WAL into the file first).
    ///
    /// The connection that failed is not trusted with it: after a write or sync that failed
    /// its files are poisoned (`CoalescingVFS`) or its pager is in its error state with a
    /// hot journal beside the file, and after a rekey that did not commit it may read with
    /// the new key a file that holds the old one (`sqlite3_rekey_v2` switches keys whether
    /// its commit worked or not), so what it wrote (the journal mode's page 1) would be under
    /// the wrong key. Closing rolls back; the new connection's first read rolls a hot
    /// journal back and removes it, and a WAL's committed frames are read as usual.
    static func reopenAndPutJournalBack(_ request: RekeyRequest, key: KeyMaterial?, _ originalJournal: String, closing connection: Connection) throws {
        try? connection.close()
        var reopen = request.database
        reopen.key = key
        reopen.searchesSettings = false
        reopen.coalescedIO = false
        reopen.mode = .readWrite
        let opened = try DatabaseOpener.open(reopen)
        defer { try? opened.connection.close() }
        opened.connection.setCheckpointOnClose(true)
        let current = try opened.connection.journalMode()
        if originalJournal == "wal" {
            if current != "wal" { try opened.connection.enterWAL() }
        } else {
            try opened.connection.leaveWAL(from: current)
        }
        try opened.connection.close()
    }
}
