import FoundationEssentials

/// The -wal and -shm a refused operation made.
extension OpenedDatabase {
    /// Closes the connection; when its open made the -wal and -shm beside a WAL database
    /// (neither was there), a new connection with the same key reads the schema and closes
    /// with its checkpoint on, so that SQLite removes them as it does on any last close: it
    /// does so only while no other connection, in any process, holds the database (its
    /// EXCLUSIVE lock), so a file another process uses keeps them. The operations that open a
    /// database read-write turn that checkpoint off, so that a refusal changes nothing, and a
    /// refused run left both files behind.
    func closeRemovingWALFilesItMade() {
        try? connection.close()
        guard !walFilesExistedBefore, FileOperations.exists(file.path + "-wal") || FileOperations.exists(file.path + "-shm") else { return }
        guard let cleaner = try? Connection(path: file.path, mode: .readWrite, logLevel: .none) else { return }
        defer { try? cleaner.close() }
        if let key {
            guard (try? cleaner.key(key)) != nil, (try? cleaner.apply(settings)) != nil else { return }
        }
        cleaner.setCheckpointOnClose(true)
        try? cleaner.verifyReadable()
    }
}
