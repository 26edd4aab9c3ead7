import CSQLCipher
import Dispatch
import FoundationEssentials

/// A key derivation running on another core while the caller does other work (deriving the
/// other key, opening the database); `value()` waits for it.
///
/// PBKDF2 is most of the time of a rekey or export of a small database, and the two keys
/// do not depend on each other, so deriving them side by side halves that wait.
final class PendingKey: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<KeyMaterial, Error>?

    /// Starts `derive` on a background thread.
    init(_ derive: @escaping @Sendable () throws -> KeyMaterial) {
        DetachedThread.start { [self] in
            result = Result(catching: derive)
            csqlcipher_thread_stop()
            done.signal()
        }
    }

    /// The derived key, once it is ready.
    func value() throws -> KeyMaterial {
        done.wait()
        done.signal()
        return try result!.get()
    }
}
