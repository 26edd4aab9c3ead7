import FoundationEssentials
import Glibc

/// A -shm no process held when a read-write open found it, as it was, to be put back after a
/// write that failed: SQLite takes such an index for stale, rebuilds it from the -wal, and a
/// large write grows it, so a refused write left it rewritten although nothing it indexes
/// changed. An index no process holds is rebuilt by the next open whatever it holds.
/// See https://www.sqlite.org/walformat.html#the_wal_index_file_format
struct StaleSharedMemory {
    let bytes: [UInt8]
    /// Its access and modification times, put back too.
    let times: (timespec, timespec)

    /// Nil when there is no -shm beside `path`, or a process holds it (it is live).
    init?(beside path: String) {
        let shm = path + "-shm"
        var status = stat()
        guard !FileOperations.sharedMemoryIsLive(beside: path), stat(shm, &status) == 0,
              let bytes = FileOperations.leadingBytes(of: shm, count: Int(status.st_size)), bytes.count == Int(status.st_size) else { return nil }
        self.bytes = bytes
        times = (status.st_atim, status.st_mtim)
    }

    /// Writes the -shm back as it was. The caller holds the database's EXCLUSIVE lock
    /// (`FileOperations.whileNoOtherProcessHolds`), so no process maps it.
    func restore(beside path: String) {
        let descriptor = open(path + "-shm", O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(bytes.count)) == 0 else { return }
        if !bytes.isEmpty {
            guard bytes.withUnsafeBytes({ FileOperations.writeFully(descriptor, from: $0.baseAddress!, count: bytes.count, at: 0) }) == nil else { return }
        }
        var restored = [times.0, times.1]
        _ = futimens(descriptor, &restored)
    }
}
