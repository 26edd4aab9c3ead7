import CSQLCipher
import Foundation

/// Runs one piece of work per database on up to `jobs` threads, reporting each result as it
/// finishes. With `failFast`, no new database starts after a failure.
struct BatchRunner {
    let jobs: Int
    let failFast: Bool

    /// Runs `work` for every path; returns the exit codes of the failures.
    func run(_ paths: [String], work: @escaping @Sendable (String) -> ExitCode) -> [ExitCode] {
        let state = BatchState(paths: paths)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, paths.count)) {
            group.enter()
            Thread.detachNewThread {
                while let path = state.next(stopOnFailure: failFast) {
                    let code = work(path)
                    state.record(code)
                }
                // SQLCipher's OpenSSL keeps state per thread; free it before the process can exit.
                csqlcipher_thread_stop()
                group.leave()
            }
        }
        group.wait()
        return state.failures
    }
}

/// The queue of paths and the failures so far, shared by the batch's threads.
private final class BatchState: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: ArraySlice<String>
    private(set) var failures: [ExitCode] = []

    init(paths: [String]) {
        remaining = paths[...]
    }

    func next(stopOnFailure: Bool) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if stopOnFailure, !failures.isEmpty { return nil }
        return remaining.popFirst()
    }

    func record(_ code: ExitCode) {
        guard code != .success else { return }
        lock.lock()
        failures.append(code)
        lock.unlock()
    }
}
