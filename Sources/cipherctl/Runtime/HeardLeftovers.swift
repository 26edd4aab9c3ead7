import CipherKit
import FoundationEssentials
import Glibc

/// The leftovers an operation said it removed, in the order it said so.
final class HeardLeftovers: @unchecked Sendable {
    private let lock = Lock()
    private var heard: [String] = []

    func add(_ path: String) {
        lock.lock()
        heard.append(path)
        lock.unlock()
    }

    var paths: [String] {
        lock.lock()
        defer { lock.unlock() }
        return heard
    }
}
