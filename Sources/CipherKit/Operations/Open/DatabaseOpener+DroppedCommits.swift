import FoundationEssentials

extension DatabaseOpener {
    /// Refuses a file beside whose -wal, with no live -shm, a frame fails SQLite's test (its
    /// salts or its checksum) before a later commit (`PageSource`): the first connection's
    /// recovery would drop that frame and every commit after it without a word, so a read
    /// would see less than was committed, and a write would lose it. With no -shm, or one no
    /// process holds (`FileOperations.sharedMemoryIsLive`: recovery runs then too), no
    /// connection is writing the -wal, so the frame is not a writer's in progress. A rekey's
    /// marks expect a torn frame, and `OpenRequest.readsPastDroppedCommits` goes on to report
    /// or recover it.
    ///
    /// Returns the walk of the -wal when one was made, for `PageOneCheck` to read page 1 from
    /// rather than walk the -wal again.
    ///
    /// - Throws: `CipherKitError.damagedPages`, naming the frame.
    static func refuseDroppedCommits(_ request: OpenRequest, file: DatabaseFile) throws -> PageSource? {
        let path = request.path
        guard [.opaque, .plaintextHeader, .plaintext].contains(file.kind),
              (FileOperations.size(of: path + "-wal") ?? 0) > 32, !FileOperations.sharedMemoryIsLive(beside: path),
              let pageSize = PageSource.walPageSize(beside: path), InterruptedRekey.marks(beside: path).isEmpty,
              let walked = try? PageSource(path: path, pageSize: pageSize) else { return nil }
        guard !request.readsPastDroppedCommits, let torn = walked.damagedWALFrame, let reason = walked.droppedCommitsReason else { return walked }
        throw CipherKitError.damagedPages(path: path, pages: [DamagedPage(page: torn.pgno, inWAL: true, reason: reason)])
    }
}
