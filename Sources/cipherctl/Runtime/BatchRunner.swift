import CipherKit
import FoundationEssentials
import Glibc

/// Runs one piece of work per database on up to `jobs` threads, reporting each result as it
/// finishes. With `failFast`, no new database starts after a failure.
struct BatchRunner {
    let jobs: Int
    let failFast: Bool

    /// Runs `work` for every path; returns the exit codes of the failures.
    func run(_ paths: [String], work: @escaping @Sendable (String) -> ExitCode) -> [ExitCode] {
        let failures = Failures()
        let failFast = self.failFast
        WorkerPool(threads: jobs).run(count: paths.count) { index in
            let code = work(paths[index])
            guard code != .success else { return true }
            failures.record(code)
            return !failFast
        }
        return failures.codes
    }
}

/// The failures so far, shared by the batch's threads.
private final class Failures: @unchecked Sendable {
    private let lock = Lock()
    private var recorded: [ExitCode] = []

    func record(_ code: ExitCode) {
        lock.lock()
        recorded.append(code)
        lock.unlock()
    }

    /// Every failure; only after every thread is done.
    var codes: [ExitCode] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}
