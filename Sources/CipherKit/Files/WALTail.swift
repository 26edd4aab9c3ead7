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
    let length: Int
    let header: [UInt8]

    /// Nil when there is no -wal beside `path` with a whole header.
    init?(beside path: String) {
        guard let length = FileOperations.size(of: path + "-wal"), length >= 32,
              let header = FileOperations.leadingBytes(of: path + "-wal", count: 32), header.count == 32 else { return nil }
        self.length = length
        self.header = header
    }

    /// Truncates the -wal back to `length` when it grew and nothing past that was committed:
    /// the header is the one found (the salts a commit frame would carry are), and no frame
    /// that ends past `length` is a commit frame with those salts. The caller holds the
    /// database's EXCLUSIVE lock (`FileOperations.whileNoOtherProcessHolds`).
    func removeFramesAppended(beside path: String) {
        let walPath = path + "-wal"
        guard let now = FileOperations.size(of: walPath), now > length,
              FileOperations.leadingBytes(of: walPath, count: 32) == header else { return }
        let pageSize = Int(header[8]) << 24 | Int(header[9]) << 16 | Int(header[10]) << 8 | Int(header[11])
        guard (512...65536).contains(pageSize), !hasCommitFrame(in: walPath, endingPast: length, frameSize: 24 + pageSize) else { return }
        _ = truncate(walPath, off_t(length))
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
