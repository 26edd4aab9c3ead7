import CSQLCipher
import FoundationEssentials
import Glibc

/// The in-place path of a key-only rekey: the rekey through the WAL under an exclusive lock,
/// and the checkpoint back into the file.
extension Rekeyer {
    /// Re-encrypts every page under an exclusive lock, through the WAL.
    ///
    /// The connection takes SQLite's exclusive locking mode (no other connection can read or
    /// write until it closes, and the WAL index stays in its memory, so no `-shm` file) and
    /// switches the database to WAL for the rekey. In WAL mode `sqlite3_rekey_v2` writes each
    /// page once, encrypted with the new key, into the WAL, and commits with one frame; a
    /// rollback journal would also have to re-encrypt every old page to journal it. It answers
    /// OK even when its commit failed, so the commit is proven (`commitFailure`) before
    /// anything counts as committed. A checkpoint then copies the pages into the database
    /// file (no crypto), and the journal mode goes back to what it was, on a new connection
    /// (`reopenAndPutJournalBack`). Killed before the commit frame, the WAL is ignored and
    /// the old key opens the file; after it, every page is in the WAL and only the new key
    /// opens it; SQLite recovers either way on the next open. A database that was not in WAL
    /// mode is marked (`InterruptedRekey`) while it is, so a later run can switch it back.
    /// The commit point is inside `sqlite3_rekey_v2`; cancellation is honoured only before it.
    static func rekeyInPlace(
        _ connection: Connection, request: RekeyRequest, originalJournal: String, opensWith: String, token: CancellationToken
    ) throws -> DatabaseSnapshot {
        let path = request.database.path
        // In exclusive locking mode the lock taken here is kept after COMMIT, until the end.
        _ = try connection.pragmaText("locking_mode = EXCLUSIVE")
        let snapshot: DatabaseSnapshot
        var snapshotPages = 0
        do {
            try connection.execute("BEGIN EXCLUSIVE")
            snapshot = try DatabaseSnapshot.read(from: connection, countRows: request.verify)
            snapshotPages = try pagesRekeyed(connection)
            if let backup = request.backupPath {
                try FileOperations.copy(path, to: backup)
            }
            try connection.execute("COMMIT")
            try token.check(path)
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            _ = try? connection.pragmaText("locking_mode = NORMAL")
            throw error
        }
        let marker = originalJournal == "wal" ? nil : try InterruptedRekey.mark(path, journal: "delete")
        do {
            try connection.enterWAL()
            try connection.rekey(request.newKey)
            if let cause = commitFailure(connection, pages: snapshotPages) { throw cause }
        } catch {
            let restored = (try? reopenAndPutJournalBack(request, key: request.database.key, originalJournal, closing: connection)) != nil
            if restored, let marker { InterruptedRekey.clear(marker) }
            throw UncommittedRekey(cause: error, journalRestored: restored)
        }
        // The checkpoint runs while the lock is held (every page through the coalescing VFS);
        // the journal mode goes back on a connection in normal locking mode, whose rollback
        // journal is removed at its commit (in exclusive mode SQLite would keep it, zeroed).
        // A checkpoint that failed poisoned the connection's files: the WAL, which holds every
        // committed page, is copied again by the new connection.
        try? connection.checkpointWAL()
        do {
            try reopenAndPutJournalBackWaiting(request, key: request.newKey, originalJournal, closing: connection)
        } catch {
            // The mark stays when the journal mode could not be put back: a rerun finishes it.
            throw CipherKitError.afterCommit(error, path: path, opensWith: opensWith)
        }
        if let marker { InterruptedRekey.clear(marker) }
        return snapshot
    }

    /// The pages `sqlite3_rekey_v2` writes: every page but SQLite's lock-byte page, which a
    /// database past 1 GiB has and which holds nothing.
    private static func pagesRekeyed(_ connection: Connection) throws -> Int {
        let pages = try connection.pragmaInteger("page_count") ?? 0
        let pageSize = max(512, try connection.pragmaInteger("page_size") ?? 4096)
        return pages - (pages > 0x4000_0000 / pageSize ? 1 : 0)
    }

    /// Why `sqlite3_rekey_v2`, which answers OK regardless, did not commit; nil when it did.
    ///
    /// A write that failed in its page loop rolls back; one that failed in its commit leaves
    /// the write transaction open; either way the VFS saw it fail. A rekey that changed
    /// nothing put fewer frames than the database has pages into the (new, empty) WAL; the
    /// passive checkpoint that counts them is the first step of putting the file back.
    private static func commitFailure(_ connection: Connection, pages: Int) -> DatabaseError? {
        let failed = CoalescingVFS.firstError(of: connection)
        if failed != nil || connection.holdsWriteTransaction {
            let code = failed ?? SQLITE_IOERR
            let systemErrno: Int32 = code & 0xFF == SQLITE_FULL ? ENOSPC : 0
            return DatabaseError(extendedCode: code, message: String(cString: sqlite3_errstr(code)), systemErrno: systemErrno)
        }
        // A checkpoint that fails after a clean commit is a failure after the commit.
        guard let frames = try? connection.checkpointPassively(), frames < pages else { return nil }
        return DatabaseError(extendedCode: SQLITE_ERROR, message: "the rekey wrote \(frames) of \(pages) pages")
    }
}
