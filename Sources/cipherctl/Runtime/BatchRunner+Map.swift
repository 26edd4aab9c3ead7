import CSQLCipher
import Foundation

extension BatchRunner {
    /// Runs `work` for each of `items` on up to `jobs` threads, calling `finished` after each
    /// one; returns the results in the items' order.
    func map<Item: Sendable, Result>(
        _ items: [Item], work: @escaping @Sendable (Item) -> Result, finished: @escaping @Sendable () -> Void = {}
    ) -> [Result] {
        let results = IndexedResults<Result>(count: items.count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, items.count)) {
            group.enter()
            Thread.detachNewThread {
                while let index = results.nextIndex() {
                    results.store(work(items[index]), at: index)
                    finished()
                }
                // SQLCipher's OpenSSL keeps state per thread; free it before the process can exit.
                csqlcipher_thread_stop()
                group.leave()
            }
        }
        group.wait()
        return results.all
    }
}

/// The next index to hand out and the results so far, shared by `map`'s threads.
private final class IndexedResults<Result>: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var results: [Result?]

    init(count: Int) {
        results = Array(repeating: nil, count: count)
    }

    func nextIndex() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < results.count else { return nil }
        next += 1
        return next - 1
    }

    func store(_ result: Result, at index: Int) {
        lock.lock()
        results[index] = result
        lock.unlock()
    }

    /// Every result; only after every thread is done.
    var all: [Result] {
        lock.lock()
        defer { lock.unlock() }
        return results.map { $0! }
    }
}
