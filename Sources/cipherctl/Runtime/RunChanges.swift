import CipherKit

/// Whether a run of a command that may change files changed none after all (a rekey that
/// found every database rotated already): a result it then cannot write is no change that
/// stands, and ends as a look's would (exit 5, not 7).
final class RunChanges: @unchecked Sendable {
    static let shared = RunChanges()
    private let lock = Lock()
    private var unchanged = false

    func recordNoneChanged() {
        lock.lock()
        unchanged = true
        lock.unlock()
    }

    var noneChanged: Bool {
        lock.lock()
        defer { lock.unlock() }
        return unchanged
    }
}
