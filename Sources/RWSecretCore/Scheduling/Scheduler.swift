import Dispatch
#if canImport(Glibc)
internal import Glibc
#endif

/// The one scheduler of the work of trying credentials (issue 33): a pool of worker threads
/// of its own and one memory budget, shared by every part of a run that works in parallel:
///
/// - the tool's pipeline, whose items (messages, whole files) are its tasks (`run(_:then:)`);
/// - PBKDF2 keys derived several at once (`PasswordHandler`), scrypt and Argon2 tries
///   (`AgeScryptBatch`, `MessageKinds`), and a stream's chunk ring and deciphering
///   (`ChunkRing`, `SpoolDecipher`): each a fork (`fork(width:_:)`, `forEach(_:width:_:)`),
///   run by the calling thread and whichever pool threads are free to help;
/// - the memory of scrypt and Argon2 tries and of the chunk ring's buffers (`reserve`, within
///   the run's `--memory`: `limitMemory`).
///
/// The scheduler decides only *who runs* the work. *Which* work runs stays with its owner:
/// `SearchGate` orders each walk's passwords, the pipeline picks the item a thread takes next
/// (stretches), and a batch of tries is decided in chain order whatever finishes first.
///
/// **Threads.** At most `width` pool threads, started as work comes and kept until the process
/// ends; `width` grows to the widest any user asked for (`--jobs N`: N), never shrinks. Not
/// Dispatch's global queue: its pool is about as wide as the cores, and it adds a thread for one
/// that blocks only after a while. A job here is a key derivation, which holds a core, so
/// `--jobs N` needs N threads at once from the first message, whatever Dispatch's guess (the
/// scale model, whose derivations sleep, shows it: on two cores Dispatch kept two of
/// `--jobs 8`'s derivations in flight, these threads eight). And not Swift concurrency's
/// cooperative pool either: a key derivation blocks its thread for as long as it runs.
///
/// **Forks never wait for a thread.** A fork's helpers are optional: the calling thread does
/// the work itself, and a pool thread that comes free joins in (before any queued task: a fork
/// is part of work already started). When every pool thread is busy, as in a full pipeline, the
/// fork runs on its caller alone, so nested work never deadlocks and never starts a thread of
/// its own. A run at `--jobs N` has the main thread and N pool threads (and OpenSSL's brief
/// start-up thread, `Crypto.prepareInBackground`).
package final class Scheduler: @unchecked Sendable {
    /// The process's scheduler.
    package static let shared = Scheduler()

    // All mutable state is guarded by `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Idle pool threads wait on it (`wakes`).
    private let work = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// A fork's caller waits on it for its helpers; a reservation for memory.
    private let finished = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var width = 0
    private var threads = 0
    /// Threads waiting for work, and the wake-ups sent to them and not yet taken.
    private var idle = 0
    private var wakes = 0
    /// The pool's threads (a fork on one of them does not widen the pool).
    private var poolThreads: Set<pthread_t> = []
    /// One entry per helper a fork still wants, taken before any task.
    private var helpers: [Fork] = []
    private var tasks: [Task] = []
    /// Bytes reserved now (`reserve`), and the run's whole budget once the run has said it.
    private var reserved = 0
    private var runLimit = 0

    /// A queued task, and what to do once the task (and everything it captured) is released.
    private final class Task: @unchecked Sendable {
        var work: (@Sendable () -> Void)?
        let done: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void, done: @escaping @Sendable () -> Void) {
            self.work = work
            self.done = done
        }
    }

    /// One fork: its body (nil once the caller has finished it), the next helper's number, and
    /// the helpers inside the body.
    private final class Fork: @unchecked Sendable {
        var body: ((Int) -> Void)?
        var nextHelper = 1
        var inside = 0
        init(_ body: @escaping (Int) -> Void) { self.body = body }
    }

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(work, nil)
        pthread_cond_init(finished, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        pthread_cond_destroy(work)
        pthread_cond_destroy(finished)
        mutex.deallocate()
        work.deallocate()
        finished.deallocate()
    }

    private func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Lets the pool grow to `threads` threads (`--jobs`); a narrower request changes nothing.
    package func widen(to threads: Int) {
        withLock { width = max(width, threads) }
    }

    /// The pool threads started so far (for tests and `--verbose`).
    package var threadsStarted: Int { withLock { threads } }

    /// Whether the calling thread is one of the pool's (for tests: where work ran).
    package var isPoolThread: Bool { withLock { poolThreads.contains(pthread_self()) } }

    // MARK: Tasks

    /// Runs `work` on a pool thread (after the helpers of running forks and the tasks queued
    /// before it); then releases it and everything it captured; then calls `done`.
    package func run(_ work: @escaping @Sendable () -> Void, then done: @escaping @Sendable () -> Void) {
        let spawn = withLock {
            tasks.append(Task(work, done: done))
            return wakeOrSpawn()
        }
        guard spawn else { return }
        if !startThread() {
            // No thread to be had and none started before: the task still runs, on Dispatch's pool.
            DispatchQueue.global().async { [self] in
                pthread_mutex_lock(mutex)
                _ = runOne()
                pthread_mutex_unlock(mutex)
            }
        }
    }

    /// Under the lock, after queuing one item: wakes an idle thread for it, or says to start a
    /// new one while fewer than `width` run (counted now).
    private func wakeOrSpawn() -> Bool {
        if wakes < idle {
            wakes += 1
            pthread_cond_signal(work)
            return false
        }
        guard threads < max(1, width) else { return false }
        threads += 1
        return true
    }

    /// Starts a pool thread (counted already); false, and uncounted, when none can be had.
    private func startThread() -> Bool {
        var attributes = pthread_attr_t()
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self)
        var started = pthread_attr_init(&attributes) == 0
        if started {
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            started = pthread_create(&thread, &attributes, { context in
                Unmanaged<Scheduler>.fromOpaque(context!).takeRetainedValue().serve()
            }, context.toOpaque()) == 0
            pthread_attr_destroy(&attributes)
        }
        if !started {
            context.release()
            withLock { threads -= 1 }
        }
        return started
    }

    /// A pool thread's life: helpers first, then tasks, one after another, forever.
    private func serve() -> Never {
        pthread_mutex_lock(mutex)
        poolThreads.insert(pthread_self())
        while true {
            if runOne() { continue }
            idle += 1
            while wakes == 0 { pthread_cond_wait(work, mutex) }
            wakes -= 1
            idle -= 1
        }
    }

    /// Under the lock (released while the work runs): runs the first helper wanted, else the
    /// first task; false when there was nothing to do.
    private func runOne() -> Bool {
        if !helpers.isEmpty {
            help(helpers.removeFirst())
            return true
        }
        guard !tasks.isEmpty else { return false }
        let task = tasks.removeFirst()
        pthread_mutex_unlock(mutex)
        task.work?()
        task.work = nil  // its captures go now (secrets wiped as they are released), before `done`
        task.done()
        pthread_mutex_lock(mutex)
        return true
    }

    // MARK: Forks

    /// Runs `body(0)` on this thread and `body(1)`, `body(2)`, … on up to `width - 1` pool
    /// threads that are free to help, and returns once every body that started has returned.
    /// A helper that is not free by the time the caller's body returns never starts, so `body`
    /// must do (or hand on) all the work itself: take it from a shared counter or queue, as
    /// `forEach` does. With `width` 1 no thread is asked.
    package func fork(width: Int, _ body: (Int) -> Void) {
        guard width > 1 else {
            body(0)
            return
        }
        withoutActuallyEscaping(body) { body in
            let fork = Fork(body)
            var spawn = 0
            withLock {
                // The caller is one of the `width`. A pool thread's fork takes the threads that
                // are free (the pool is as wide as `--jobs` already); another caller's may widen it.
                if !poolThreads.contains(pthread_self()) { self.width = max(self.width, width - 1) }
                for _ in 1..<width {
                    helpers.append(fork)
                    if wakeOrSpawn() { spawn += 1 }
                }
            }
            for _ in 0..<spawn where !startThread() { break }
            body(0)
            withLock {
                fork.body = nil
                helpers.removeAll { $0 === fork }
                while fork.inside > 0 { pthread_cond_wait(finished, mutex) }
            }
        }
    }

    /// Under the lock (released while the body runs): joins `fork` unless its caller is done.
    private func help(_ fork: Fork) {
        guard var body = fork.body else { return }
        let number = fork.nextHelper
        fork.nextHelper += 1
        fork.inside += 1
        pthread_mutex_unlock(mutex)
        body(number)
        body = { _ in }  // let go of the caller's body before it may return
        pthread_mutex_lock(mutex)
        fork.inside -= 1
        if fork.inside == 0 { pthread_cond_broadcast(finished) }
    }

    /// Runs `body(i)` for every `i` in `0..<count`, on this thread and up to `width - 1` pool
    /// threads free to help (as `fork`), each taking the next index not taken.
    package func forEach(_ count: Int, width: Int, _ body: (Int) -> Void) {
        guard count > 1, width > 1 else {
            for index in 0..<count { body(index) }
            return
        }
        let next = LockedState(0)
        fork(width: min(width, count)) { _ in
            while true {
                let index = next.withLock { next in
                    defer { next += 1 }
                    return next
                }
                guard index < count else { return }
                body(index)
            }
        }
    }

    // MARK: Memory

    /// Bytes held from the budget until `release()` (or until the reservation goes).
    package final class Reservation: @unchecked Sendable {
        private let scheduler: Scheduler
        private var bytes: Int

        fileprivate init(_ scheduler: Scheduler, bytes: Int) {
            self.scheduler = scheduler
            self.bytes = bytes
        }

        /// Gives the bytes back (once).
        package func release() {
            let bytes = self.bytes
            self.bytes = 0
            guard bytes > 0 else { return }
            scheduler.withLock {
                scheduler.reserved -= bytes
                pthread_cond_broadcast(scheduler.finished)
            }
        }

        deinit { release() }
    }

    /// The run's whole memory budget (`decrypt --memory`, resolved): what every part of the run
    /// reserves together at most. A part's own view of it (a file's share, `TryBudget.memory`)
    /// bounds that part alone.
    package func limitMemory(to bytes: Int) {
        withLock { runLimit = max(0, bytes) }
    }

    /// The memory budget every part of a run draws from: holds `bytes` once the bytes reserved
    /// by others and `bytes` fit in the run's budget (`limitMemory`), or in `limit` (the part's
    /// view of it, `TryBudget.memory` for tries) when that is larger or the run has not said,
    /// waiting for others' releases until they do. A request larger than that waits until
    /// nothing else is reserved, then runs alone: the budget bounds how much runs together,
    /// never whether something can run. Hold no other reservation while asking.
    package func reserve(_ bytes: Int, within limit: Int) -> Reservation {
        let bytes = max(0, bytes)
        withLock {
            let limit = max(limit, runLimit)
            while reserved > 0 && reserved + bytes > limit { pthread_cond_wait(finished, mutex) }
            reserved += bytes
        }
        return Reservation(self, bytes: bytes)
    }

    /// The bytes reserved now (for tests).
    package var bytesReserved: Int { withLock { reserved } }
}
