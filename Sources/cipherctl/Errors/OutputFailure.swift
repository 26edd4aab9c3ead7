import CipherKit
import FoundationEssentials
import Glibc

/// The first write to standard output that failed (a closed reader, EIO, a full disk) outside
/// the streaming commands, which handle their own: a command's result line or JSON object.
/// `CipherCtl.run` turns it into an error and an exit code once the command has returned, so
/// a change already committed is reported as such and a failed write never crashes.
final class OutputFailure: @unchecked Sendable {
    static let shared = OutputFailure()
    private let lock = Lock()
    private var recorded: OutputClosed?

    func record(_ failure: OutputClosed) {
        lock.lock()
        if recorded == nil { recorded = failure }
        lock.unlock()
    }

    var first: OutputClosed? {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}
