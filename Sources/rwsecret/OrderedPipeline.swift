import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Runs work items on up to `jobs` threads and delivers their results in submission order.
///
/// A result is delivered as soon as it and every result before it are done, from
/// whichever thread finished last, under one lock (so a pipe sees results as they
/// come, even while the main thread waits for more input). In-flight work is
/// bounded by `jobs`, and finished-but-undelivered results by a window of
/// `4 × jobs`, so memory stays bounded whatever the input. With `jobs == 1`
/// everything runs inline on the calling thread; otherwise on up to `jobs` threads of
/// the pipeline's own (`WorkerThreads`).
final class OrderedPipeline<Result>: @unchecked Sendable {
    // All mutable state is guarded by `lock`.
    private let jobs: Int
    private let lock = Lock()
    private let running: DispatchSemaphore
    private let window: DispatchSemaphore
    private let group = DispatchGroup()
    private let workers: WorkerThreads
    private var pending: [Int: Result] = [:]
    private var nextToSubmit = 0
    private var nextToDeliver = 0
    private var runningCount = 0
    /// Work held back by `submitDeferred` (touched by the submitting thread only).
    private var deferred: (@Sendable (_ threads: Int) -> Result)?
    private let deliver: (Result) -> Void

    /// `deliver` is called in order, under the pipeline's lock.
    init(jobs: Int, deliver: @escaping (Result) -> Void) {
        self.jobs = jobs
        self.deliver = deliver
        running = DispatchSemaphore(value: jobs)
        workers = WorkerThreads(limit: jobs)
        window = DispatchSemaphore(value: 4 * jobs)
    }

    /// Runs `body` while holding the lock that deliveries hold (for state they share).
    func synchronized<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock(body)
    }

    /// A result that is already known (a line that failed before any work).
    func submit(result: Result) {
        startDeferred()
        let sequence = nextToSubmit
        nextToSubmit += 1
        if jobs > 1 { window.wait() }
        finish(sequence, result)
    }

    /// Queues `work`; blocks while `jobs` items are running or the window is full.
    ///
    /// `work` is told how many threads it may use itself: the cores that no
    /// other item is using when it starts (so one message alone on a stream
    /// gets them all, and a full file gets one each).
    func submit(_ work: @escaping @Sendable (_ threads: Int) -> Result) {
        startDeferred()
        start(work, onThisThread: jobs == 1)
    }

    /// Like `submit(_:)`, but `work` waits for the next submission: if none comes before
    /// `drain()`, the calling thread runs it itself — for the last item of an input a
    /// hand-off to a worker would only add the wait for it to wake (0.5 ms and more here).
    /// Only for input whose next item comes without blocking (a regular file); call
    /// `startDeferred()` before reading anything that may block.
    func submitDeferred(_ work: @escaping @Sendable (_ threads: Int) -> Result) {
        startDeferred()
        deferred = work
    }

    /// Queues the deferred work, if any, like any other.
    func startDeferred() {
        guard let work = deferred else { return }
        deferred = nil
        submit(work)
    }

    /// Numbers `work`, waits for room, and runs it on this thread or a worker.
    private func start(_ work: @escaping @Sendable (_ threads: Int) -> Result, onThisThread: Bool) {
        let sequence = nextToSubmit
        nextToSubmit += 1
        if jobs > 1 {
            window.wait()
            running.wait()
        }
        let threads = lock.withLock {
            runningCount += 1
            return jobs - runningCount + 1
        }
        let run: @Sendable () -> Void = { [self] in
            let result = work(threads)
            lock.withLock { runningCount -= 1 }
            if jobs > 1 { running.signal() }
            finish(sequence, result)
        }
        if onThisThread {
            run()
        } else {
            group.enter()
            // `leave` only once the worker has let go of `run` and all it holds (the message,
            // the chain's passwords): the run may end, and the process exit, at once after it.
            workers.run(run) { [group] in group.leave() }
        }
    }

    /// Runs the deferred work here, if any, and waits until every result has been delivered.
    func drain() {
        if let work = deferred {
            deferred = nil
            start(work, onThisThread: true)
        }
        group.wait()
    }

    private func finish(_ sequence: Int, _ result: Result) {
        lock.withLock {
            pending[sequence] = result
            while let ready = pending.removeValue(forKey: nextToDeliver) {
                deliver(ready)
                nextToDeliver += 1
                if jobs > 1 { window.signal() }
            }
        }
    }
}

/// Threads of a pipeline's own, started as work comes (at most `limit`), that wait for
/// more once started, until the process ends.
///
/// Not Dispatch's global queue: its pool is about as wide as the cores, and it adds a
/// thread for one that blocks only after a while. A job here is a key derivation, which
/// holds a core, so `--jobs N` needs N threads at once from the first message, whatever
/// Dispatch's guess (and the scale model, whose derivations sleep, shows it: on two
/// cores Dispatch kept two of `--jobs 8`'s derivations in flight, these threads eight).
private final class WorkerThreads: @unchecked Sendable {
    // All mutable state is guarded by `lock`; `ready` counts the queued items.
    private let limit: Int
    private let lock = Lock()
    private let ready = DispatchSemaphore(value: 0)
    private var queue: [Item] = []

    /// A queued job, and what to do once the job (and everything it captured) is released.
    private final class Item: @unchecked Sendable {
        var work: (@Sendable () -> Void)?
        let done: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void, done: @escaping @Sendable () -> Void) {
            self.work = work
            self.done = done
        }
    }
    private var threads = 0
    private var idle = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Runs `work` on an idle thread, or on a new one while fewer than `limit` run; then
    /// releases it, then calls `done`.
    func run(_ work: @escaping @Sendable () -> Void, then done: @escaping @Sendable () -> Void) {
        let spawn = lock.withLock {
            queue.append(Item(work, done: done))
            if idle > 0 {
                idle -= 1
                return false
            }
            guard threads < limit else { return false }
            threads += 1
            return true
        }
        ready.signal()
        guard spawn else { return }
        var attributes = pthread_attr_t()
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self)
        var started = pthread_attr_init(&attributes) == 0
        if started {
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            started = pthread_create(&thread, &attributes, { context in
                Unmanaged<WorkerThreads>.fromOpaque(context!).takeRetainedValue().serve()
            }, context.toOpaque()) == 0
            pthread_attr_destroy(&attributes)
        }
        if !started {
            // No thread to be had: the queued item still runs, on Dispatch's pool.
            context.release()
            lock.withLock { threads -= 1 }
            DispatchQueue.global().async { [self] in runOne() }
        }
    }

    /// A thread's life: the queued items, one after another, forever.
    private func serve() -> Never {
        while true {
            runOne()
            lock.withLock { idle += 1 }
        }
    }

    private func runOne() {
        ready.wait()
        let item = lock.withLock { queue.removeFirst() }
        item.work?()
        item.work = nil  // its captures go now (secrets wiped as they are released), before `done`
        item.done()
    }
}
