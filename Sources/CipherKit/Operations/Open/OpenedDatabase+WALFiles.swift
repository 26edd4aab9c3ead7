import FoundationEssentials
import Glibc

/// The -wal and -shm a refused operation made.
extension OpenedDatabase {
    /// Closes the connection and removes what its open made beside a WAL database.
    ///
    /// When neither file was there, a new connection with the same key reads the schema and
    /// closes with its checkpoint on, so that SQLite removes both as it does on any last
    /// close: it does so only while no other connection, in any process, holds the database
    /// (its EXCLUSIVE lock), so a file another process uses keeps them. When a -wal was there
    /// without its -shm (a killed writer's), the -shm this open made is removed under the
    /// same lock (`FileOperations.whileNoOtherProcessHolds`), with the frames a failed write
    /// appended to the -wal (`WALTail`); the -wal stays, and the next open rebuilds its index
    /// from it. The operations that open a database read-write turn the checkpoint off, so
    /// that a refusal changes nothing, and a refused run left these files behind.
    func closeRemovingWALFilesItMade() {
        try? connection.close()
        // A connection still open (a busy close) keeps the -shm mapped: it must stay.
        guard connection.isClosed else { return }
        if !walFilesExistedBefore {
            removeWALFilesThroughACleaner()
        } else if walTail != nil || !sharedMemoryExistedBefore {
            FileOperations.whileNoOtherProcessHolds(file.path) {
                walTail?.removeFramesAppended(beside: file.path)
                if !sharedMemoryExistedBefore { _ = unlink(file.path + "-shm") }
            }
        }
    }

    /// Closes the connection after a write that failed and was rolled back, leaving the
    /// files as the open found them: no checkpoint moves a killed writer's -wal into the
    /// file, and what the open made is removed (`closeRemovingWALFilesItMade`).
    public func closeAfterFailedWrite() {
        connection.setCheckpointOnClose(false)
        closeRemovingWALFilesItMade()
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
