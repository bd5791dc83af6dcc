#if canImport(Glibc)
internal import Glibc
#endif

/// A value shared between threads, read and changed only under a pthread mutex.
///
/// Not `Synchronization.Mutex`: on Linux that one waits on a futex of its own, which
/// ThreadSanitizer does not see as a lock, so `make sanitize` reported every access
/// under it as a race; a pthread mutex it intercepts.
package final class LockedState<State>: @unchecked Sendable {
    // `state` is touched only between pthread_mutex_lock and pthread_mutex_unlock.
    private var state: State
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` on the state, holding the lock.
    package func withLock<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
