import CipherKit
import CSQLCipher
import Dispatch
import FoundationEssentials
import Glibc

/// Up to `threads` threads that take the indices `0..<count` in order, one at a time, until
/// none is left or a piece of work asks the pool to stop.
struct WorkerPool {
    let threads: Int

    /// Calls `work` once for each index handed out; when `work` returns false, no further
    /// index is handed out (the pieces already running finish). Returns when every thread is done.
    func run(count: Int, work: @escaping @Sendable (Int) -> Bool) {
        let queue = IndexQueue(count: count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(threads, count)) {
            group.enter()
            DetachedThread.start {
                while let index = queue.next() {
                    if !work(index) { queue.stop() }
                }
                // SQLCipher's OpenSSL keeps state per thread; free it before the process can exit.
                csqlcipher_thread_stop()
                group.leave()
            }
        }
        group.wait()
    }
}

/// The next index to hand out, shared by the pool's threads.
private final class IndexQueue: @unchecked Sendable {
    private let lock = Lock()
    private let count: Int
    private var handedOut = 0
    private var stopped = false

    init(count: Int) {
        self.count = count
    }

    func next() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped, handedOut < count else { return nil }
        handedOut += 1
        return handedOut - 1
    }

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }
}
