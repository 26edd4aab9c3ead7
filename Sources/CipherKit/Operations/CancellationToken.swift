import CSQLCipher
import FoundationEssentials

/// Lets another thread (a signal handler's queue, say) stop a long operation.
///
/// `cancel()` sets a flag that operations check at their safe points, and interrupts the
/// SQL of every registered connection (`sqlite3_interrupt`), so an export stops at once and
/// rolls back. A step that has passed its commit point is never cut short.
public final class CancellationToken: @unchecked Sendable {
    private let lock = Lock()
    private var cancelled = false
    private var connections: [ObjectIdentifier: Connection] = [:]

    public init() {}

    /// Whether `cancel()` has been called.
    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Asks every operation using this token to stop.
    public func cancel() {
        lock.lock()
        cancelled = true
        let active = Array(connections.values)
        lock.unlock()
        for connection in active { connection.interrupt() }
    }

    /// Registers a connection whose SQL `cancel()` interrupts, for the duration of `body`.
    func interrupting<T>(_ connection: Connection, _ body: () throws -> T) rethrows -> T {
        lock.lock()
        connections[ObjectIdentifier(connection)] = connection
        let already = cancelled
        lock.unlock()
        defer {
            lock.lock()
            connections[ObjectIdentifier(connection)] = nil
            lock.unlock()
        }
        if already { connection.interrupt() }
        return try body()
    }

    /// Throws `CipherKitError.cancelled` when cancelled; operations call it before each step
    /// that cannot be undone.
    func check(_ path: String) throws {
        if isCancelled { throw CipherKitError.cancelled(path: path) }
    }
}
