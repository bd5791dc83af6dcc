import Dispatch

/// Runs work items on up to `jobs` threads and delivers their results in submission order.
///
/// A result is delivered as soon as it and every result before it are done, from
/// whichever thread finished last, under one lock (so a pipe sees results as they
/// come, even while the main thread waits for more input). In-flight work is
/// bounded by `jobs`, and finished-but-undelivered results by a window of
/// `4 × jobs`, so memory stays bounded whatever the input. With `jobs == 1`
/// everything runs inline on the calling thread.
final class OrderedPipeline<Result>: @unchecked Sendable {
    // All mutable state is guarded by `lock`.
    private let jobs: Int
    private let lock = Lock()
    private let running: DispatchSemaphore
    private let window: DispatchSemaphore
    private let group = DispatchGroup()
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
        if onThisThread { run() } else { DispatchQueue.global().async(group: group, execute: run) }
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
