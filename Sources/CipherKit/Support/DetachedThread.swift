import Glibc

/// A thread of its own for `body`, nobody joining it: what `Thread.detachNewThread` gave,
/// without linking the whole of Foundation. The stack is the system's default for threads
/// (as `Thread`'s), since PBKDF2, page checks and SQLite run on it.
public enum DetachedThread {
    /// Starts `body` on a new thread; stops the process when no thread can be made, as
    /// `Thread` did (nothing can go on without one).
    public static func start(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let result = pthread_create(&thread, &attributes, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        // A bug or an exhausted system, not a user's mistake: there is no way to go on.
        precondition(result == 0, "cannot start a thread: \(String(cString: strerror(result)))")
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
