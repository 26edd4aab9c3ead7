import FoundationEssentials
import Glibc

/// A -wal's length and header as a read-write open found them, so that the frames a failed
/// write appended can be taken off again, and nothing more.
///
/// A write transaction whose changes outgrow SQLite's page cache spills them into the -wal
/// as frames without a commit; its rollback only forgets them (the next commit writes over
/// them), so a failed import left a -wal megabytes longer than it found it.
/// See https://www.sqlite.org/fileformat2.html#the_write_ahead_log
struct WALTail {
    private(set) var length: Int
    let header: [UInt8]
    /// Its access and modification times, put back with its length.
    let times: (timespec, timespec)

    /// The -wal beside `path` as if the open had found its header alone: for a -wal the open
    /// made, of which only the header is to stay. Nil when there is none with a whole header.
    static func header(beside path: String) -> WALTail? {
        guard var tail = WALTail(beside: path) else { return nil }
        tail.length = 32
        return tail
    }

    /// Nil when there is no -wal beside `path` with a whole header.
    init?(beside path: String) {
        var status = stat()
        guard stat(path + "-wal", &status) == 0, status.st_size >= 32,
              let header = FileOperations.leadingBytes(of: path + "-wal", count: 32), header.count == 32 else { return nil }
        length = Int(status.st_size)
        self.header = header
        times = (status.st_atim, status.st_mtim)
    }

    /// Truncates the -wal back to `length` when it grew under the header it was found with,
    /// and nothing past `length` was committed: no frame that ends past it is a commit frame
    /// with the header's salts. With `droppingCommits` (the caller's one transaction failed),
    /// a commit frame past the last commit SQLite recorded in the -shm goes too: a commit
    /// whose sync failed (EIO, ENOSPC) may have reached the -wal whole, where the next open
    /// would read it although SQLite reported the failure, while another process's commit
    /// made meanwhile is recorded there and stays. The caller holds the database's EXCLUSIVE
    /// lock (`FileOperations.whileNoOtherProcessHolds`), and reads the -shm before it goes.
    func removeFramesAppended(beside path: String, droppingCommits: Bool) {
        let walPath = path + "-wal"
        guard let now = FileOperations.size(of: walPath), now > length,
              FileOperations.leadingBytes(of: walPath, count: 32) == header else { return }
        let pageSize = Int(header[8]) << 24 | Int(header[9]) << 16 | Int(header[10]) << 8 | Int(header[11])
        guard (512...65536).contains(pageSize) else { return }
        let frameSize = 24 + pageSize
        let recorded = droppingCommits ? committedFrames(beside: path) : nil
        let keep = recorded.map { max(length, 32 + $0 * frameSize) } ?? length
        guard now > keep else { return }
        // Without the -shm's record, only frames that no commit follows are taken off.
        if recorded == nil, hasCommitFrame(in: walPath, endingPast: keep, frameSize: frameSize) { return }
        guard truncate(walPath, off_t(keep)) == 0 else { return }
        var restored = [times.0, times.1]
        _ = utimensat(AT_FDCWD, walPath, &restored, 0)
    }

    /// The frames of the -wal committed as the -shm beside `path` records them (its header's
    /// `mxFrame`), when its two header copies agree, it is initialised, and its salts are the
    /// -wal's; nil otherwise. See https://www.sqlite.org/walformat.html#the_wal_index_file_format
    private func committedFrames(beside path: String) -> Int? {
        guard let index = FileOperations.leadingBytes(of: path + "-shm", count: 96), index.count == 96,
              index[0..<48] == index[48..<96], index[12] == 1, Array(index[32..<40]) == Array(header[16..<24]) else { return nil }
        // The header is in the writer's byte order: little-endian on every platform built for.
        return Int(index[16]) | Int(index[17]) << 8 | Int(index[18]) << 16 | Int(index[19]) << 24
    }

    private func hasCommitFrame(in walPath: String, endingPast end: Int, frameSize: Int) -> Bool {
        let descriptor = open(walPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        // The first frame that ends past `end`.
        var offset = 32 + (end - 32) / frameSize * frameSize
        var frameHeader = [UInt8](repeating: 0, count: 24)
        while pread(descriptor, &frameHeader, 24, off_t(offset)) == 24 {
            let commit = frameHeader[4] | frameHeader[5] | frameHeader[6] | frameHeader[7] != 0
            if commit, Array(frameHeader[8..<16]) == Array(header[16..<24]) { return true }
            offset += frameSize
        }
        return false
    }
}
