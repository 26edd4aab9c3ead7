import Glibc

/// How many reader locks (`ReaderLock`) this process holds on each file, by device and inode.
/// A second lock on a file the process already holds skips the PENDING byte: a writer holding
/// PENDING while it waits for the first lock to go would otherwise keep both waiting.
final class HeldReaderLocks: @unchecked Sendable {
    static let shared = HeldReaderLocks()

    private struct Identity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private let lock = Lock()
    private var counts: [Identity: Int] = [:]

    /// Whether this process holds a reader lock on the file open at `descriptor`.
    func holds(_ descriptor: Int32) -> Bool {
        guard let identity = Self.identity(of: descriptor) else { return false }
        lock.lock()
        defer { lock.unlock() }
        return counts[identity, default: 0] > 0
    }

    /// Counts one more lock on the file open at `descriptor`.
    func enter(_ descriptor: Int32) {
        guard let identity = Self.identity(of: descriptor) else { return }
        lock.lock()
        counts[identity, default: 0] += 1
        lock.unlock()
    }

    /// Counts one lock fewer on the file open at `descriptor`.
    func leave(_ descriptor: Int32) {
        guard let identity = Self.identity(of: descriptor) else { return }
        lock.lock()
        let left = counts[identity, default: 1] - 1
        counts[identity] = left > 0 ? left : nil
        lock.unlock()
    }

    private static func identity(of descriptor: Int32) -> Identity? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}
