import Glibc

/// What a read-write open that failed made beside a WAL database, taken away again: its -shm
/// (SQLite creates one, then grows it a page at a time, and a full disk stops it at 3 bytes),
/// an empty -wal it created, and a stale -shm it began to rebuild, put back as it was.
/// Only while no other process holds the database (`FileOperations.whileNoOtherProcessHolds`),
/// as `OpenedDatabase.closeRemovingWALFilesItMade` does after a failed write.
struct FailedOpenCleanup {
    let path: String
    let sharedMemoryExisted: Bool
    /// The -wal or the -shm was there.
    let walFilesExisted: Bool
    let staleSharedMemory: StaleSharedMemory?

    /// Runs once the failed open's connections are gone (their close released every lock
    /// this process held on the file).
    func run() {
        let madeSharedMemory = !sharedMemoryExisted && FileOperations.exists(path + "-shm")
        let madeEmptyWAL = !walFilesExisted && FileOperations.size(of: path + "-wal") == 0
        guard madeSharedMemory || madeEmptyWAL || staleSharedMemory != nil else { return }
        FileOperations.whileNoOtherProcessHolds(path) {
            // Only now is the -wal known to be no other writer's.
            if madeEmptyWAL, FileOperations.size(of: path + "-wal") == 0 { _ = unlink(path + "-wal") }
            if madeSharedMemory { _ = unlink(path + "-shm") }
            staleSharedMemory?.restore(beside: path)
        }
    }
}
