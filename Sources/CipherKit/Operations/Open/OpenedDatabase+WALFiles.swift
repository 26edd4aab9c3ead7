import FoundationEssentials
import Glibc

/// The -wal, -shm and journal a refused operation made.
extension OpenedDatabase {
    /// Closes the connection and removes what its open made beside a WAL database.
    ///
    /// When neither file was there, a new connection with the same key reads the schema and
    /// closes with its checkpoint on, so that SQLite removes both as it does on any last
    /// close: it does so only while no other connection, in any process, holds the database
    /// (its EXCLUSIVE lock), so a file another process uses keeps them. When a -wal was there
    /// without its -shm (a killed writer's), the -shm this open made is removed under the
    /// same lock (`FileOperations.whileNoOtherProcessHolds`), with the frames a failed write
    /// appended to the -wal (`WALTail`), and a stale -shm it found is put back as it was
    /// (`StaleSharedMemory`); the -wal stays, and the next open rebuilds its index from it.
    /// The operations that open a database read-write turn the checkpoint off, so that a
    /// refusal changes nothing, and a refused run left these files behind.
    ///
    /// `droppingCommits`: nothing the connection wrote was reported committed, so a commit
    /// frame appended to the -wal is a failed commit's (`WALTail.removeFramesAppended`).
    func closeRemovingWALFilesItMade(droppingCommits: Bool = false) {
        // A refusal never checkpoints: the -wal may hold the damage it refused (a frame whose
        // checksum holds and whose HMAC fails), which a checkpoint would move into the file.
        connection.setCheckpointOnClose(false)
        try? connection.close()
        // A connection still open (a busy close) keeps the -shm mapped: it must stay.
        guard connection.isClosed else { return }
        if !walFilesExistedBefore {
            // A failed commit's frames go first, or the cleaner's checkpoint would commit them.
            if droppingCommits, let made = WALTail.header(beside: file.path) {
                FileOperations.whileNoOtherProcessHolds(file.path) { made.removeFramesAppended(beside: file.path, droppingCommits: true) }
            }
            removeWALFilesThroughACleaner()
        } else if walTail != nil || !sharedMemoryExistedBefore || staleSharedMemory != nil {
            FileOperations.whileNoOtherProcessHolds(file.path) {
                walTail?.removeFramesAppended(beside: file.path, droppingCommits: droppingCommits)
                if !sharedMemoryExistedBefore { _ = unlink(file.path + "-shm") }
                staleSharedMemory?.restore(beside: file.path)
            }
        }
    }

    /// Closes the connection after a write that failed and was rolled back, leaving the
    /// files as the open found them: no checkpoint moves a killed writer's -wal into the
    /// file, and what the open made is removed (`closeRemovingWALFilesItMade`). With
    /// `oneTransaction` the write was one transaction, none of it reported committed.
    public func closeAfterFailedWrite(oneTransaction: Bool) {
        connection.setCheckpointOnClose(false)
        closeRemovingWALFilesItMade(droppingCommits: oneTransaction)
        removeJournalItLeft()
    }

    /// A write that failed on a damaged page leaves SQLite's pager in its error state, which
    /// keeps the rollback journal it opened. That journal is not hot: its header stays zeros
    /// until the sync before the file's first change, which never came. It is removed while no
    /// other process holds the database, when no one's transaction can be writing it.
    private func removeJournalItLeft() {
        let journal = file.path + "-journal"
        guard !journalExistedBefore, connection.isClosed, FileOperations.exists(journal) else { return }
        FileOperations.whileNoOtherProcessHolds(file.path) {
            if !FileOperations.journalHoldsTransaction(beside: file.path) { _ = unlink(journal) }
        }
    }

    private func removeWALFilesThroughACleaner() {
        guard FileOperations.exists(file.path + "-wal") || FileOperations.exists(file.path + "-shm") else { return }
        guard let cleaner = try? Connection(path: file.path, mode: .readWrite, logLevel: .none) else { return }
        defer { try? cleaner.close() }
        if let key {
            guard (try? cleaner.key(key)) != nil, (try? cleaner.apply(settings)) != nil else { return }
        }
        cleaner.setCheckpointOnClose(true)
        try? cleaner.verifyReadable()
    }
}
