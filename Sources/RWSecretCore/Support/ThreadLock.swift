#if canImport(Glibc)
internal import Glibc
#endif

/// A plain pthread mutex around a few fields of a class, where `LockedState`'s one value
/// does not fit (the pipeline's counters, the identity chain's winner); ThreadSanitizer
/// sees it, as `LockedState`.
package final class ThreadLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
