import CipherKit
import FoundationEssentials
import Glibc

extension BatchRunner {
    /// Runs `work` for each of `items` on up to `jobs` threads, calling `finished` after each
    /// one; returns the results in the items' order.
    func map<Item: Sendable, Result>(
        _ items: [Item], work: @escaping @Sendable (Item) -> Result, finished: @escaping @Sendable () -> Void = {}
    ) -> [Result] {
        let results = IndexedResults<Result>(count: items.count)
        WorkerPool(threads: jobs).run(count: items.count) { index in
            results.store(work(items[index]), at: index)
            finished()
            return true
        }
        return results.all
    }
}

/// The results so far, in the items' order, shared by `map`'s threads.
private final class IndexedResults<Result>: @unchecked Sendable {
    private let lock = Lock()
    private var results: [Result?]

    init(count: Int) {
        results = Array(repeating: nil, count: count)
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
