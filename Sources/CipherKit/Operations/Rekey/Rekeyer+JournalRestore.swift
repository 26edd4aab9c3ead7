import FoundationEssentials
import Glibc

/// Putting a database's journal mode back after a failure, on a connection of its own.
extension Rekeyer {
    /// `reopenAndPutJournalBack`, tried again while another connection holds the file, up to
    /// the request's busy timeout: a writer that opened it in the moment between the two
    /// connections makes SQLite refuse the switch at once rather than wait.
    static func reopenAndPutJournalBackWaiting(_ request: RekeyRequest, key: KeyMaterial?, _ originalJournal: String, closing connection: Connection) throws {
        let deadline = Date().addingTimeInterval(Double(request.database.busyTimeoutMilliseconds) / 1000)
        while true {
            do {
                return try reopenAndPutJournalBack(request, key: key, originalJournal, closing: connection)
            } catch let error where isBusy(error) && Date() < deadline {
                usleep(20_000)
            }
        }
    }

    private static func isBusy(_ error: Error) -> Bool {
        if case CipherKitError.busy = error { return true }
        return (error as? DatabaseError)?.isBusy == true
    }

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
        try opened.connection.restoreJournal(originalJournal)
        try opened.connection.close()
    }
}
