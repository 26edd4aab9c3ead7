import Glibc

/// A lock with a condition to wait on, over `pthread_mutex_t` and `pthread_cond_t`: what
/// `NSCondition` gave, without linking the whole of Foundation.
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() {
        pthread_mutex_lock(mutex)
    }

    public func unlock() {
        pthread_mutex_unlock(mutex)
    }

    /// Waits for a signal, holding the lock before and after (callers loop on their predicate:
    /// a wait may end without one).
    public func wait() {
        pthread_cond_wait(condition, mutex)
    }

    public func signal() {
        pthread_cond_signal(condition)
    }

    public func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
