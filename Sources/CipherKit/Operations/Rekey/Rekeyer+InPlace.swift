import Foundation

/// The in-place path of a key-only rekey: the rekey through the WAL under an exclusive lock,
/// and the checkpoint back into the file.
extension Rekeyer {
    /// Re-encrypts every page under an exclusive lock, through the WAL.
    ///
    /// The connection takes SQLite's exclusive locking mode (no other connection can read or
    /// write until it closes, and the WAL index stays in its memory, so no `-shm` file) and
    /// switches the database to WAL for the rekey. In WAL mode `sqlite3_rekey_v2` writes each
    /// page once, encrypted with the new key, into the WAL, and commits with one frame; a
    /// rollback journal would also have to re-encrypt every old page to journal it. A
    /// checkpoint then copies the pages into the database file (no crypto), and the journal
    /// mode goes back to what it was. Killed before the commit frame, the WAL is ignored and
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
        do {
            try connection.execute("BEGIN EXCLUSIVE")
            snapshot = try DatabaseSnapshot.read(from: connection, countRows: request.verify)
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
        var committed = false
        do {
            try connection.enterWAL()
            try connection.rekey(request.newKey)
            if !connection.isAutocommit { try connection.execute("COMMIT") }
            committed = true
            try leaveInPlaceWAL(connection, originalJournal: originalJournal)
            if let marker { InterruptedRekey.clear(marker) }
            return snapshot
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            if (try? leaveInPlaceWAL(connection, originalJournal: originalJournal)) != nil, let marker {
                InterruptedRekey.clear(marker)
            }
            // The mark stays when the journal mode could not be put back: a rerun finishes it.
            throw committed ? CipherKitError.afterCommit(error, path: path, opensWith: opensWith) : error
        }
    }

    /// Copies the WAL into the database file and goes back to the original journal mode.
    static func leaveInPlaceWAL(_ connection: Connection, originalJournal: String) throws {
        if originalJournal == "wal" {
            try connection.checkpointWAL()
        } else {
            try connection.leaveWAL(from: "wal")
        }
        _ = try connection.pragmaText("locking_mode = NORMAL")
    }
}
