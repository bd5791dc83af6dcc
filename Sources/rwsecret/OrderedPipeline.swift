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
        let sequence = nextToSubmit
        nextToSubmit += 1
        if jobs == 1 {
            finish(sequence, work(1))
            return
        }
        window.wait()
        running.wait()
        let threads = lock.withLock {
            runningCount += 1
            return jobs - runningCount + 1
        }
        DispatchQueue.global().async(group: group) {
            let result = work(threads)
            self.lock.withLock { self.runningCount -= 1 }
            self.running.signal()
            self.finish(sequence, result)
        }
    }

    /// Runs `work` on the calling thread, in turn with the queued items.
    ///
    /// For the last item of an input: a hand-off to a worker thread would only
    /// add the wait for that thread to wake (measured at 0.5 ms and more here).
    func run(_ work: (_ threads: Int) -> Result) {
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
        let result = work(threads)
        lock.withLock { runningCount -= 1 }
        if jobs > 1 { running.signal() }
        finish(sequence, result)
    }

    /// Waits until every submitted result has been delivered.
    func drain() {
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
