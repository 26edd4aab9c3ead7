import CipherKit
import FoundationEssentials
import Glibc

/// `auditing 120/312 files` on standard error, redrawn as items finish, for runs longer than
/// about a second. Only on a terminal, and never with --quiet or --json.
final class CountProgress: @unchecked Sendable {
    private let verb: String
    private let total: Int
    private let noun: String
    private let started = Date()
    private let lock = Lock()
    private var done = 0
    private var drawn = false

    /// A counter for `total` items, or nil when standard error is not a terminal or output must stay quiet.
    static func make(verb: String, total: Int, noun: String, console: Console) -> CountProgress? {
        guard isatty(STDERR_FILENO) != 0, !console.quiet, !console.json else { return nil }
        return CountProgress(verb: verb, total: total, noun: noun)
    }

    private init(verb: String, total: Int, noun: String) {
        self.verb = verb
        self.total = total
        self.noun = noun
    }

    /// One more item is done.
    func advance() {
        lock.lock()
        defer { lock.unlock() }
        done += 1
        guard Date().timeIntervalSince(started) > 1, done < total else { return }
        StandardOutput.writeError("\r\u{1B}[K\(verb) \(done)/\(total) \(noun)")
        drawn = true
    }

    /// Clears the line before the results are printed.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { StandardOutput.writeError("\r\u{1B}[K") }
        drawn = false
    }
}
