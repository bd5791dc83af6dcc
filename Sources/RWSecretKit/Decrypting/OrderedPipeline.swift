import Dispatch
#if canImport(Glibc)
internal import Glibc
#endif

/// Runs work items on up to `jobs` threads and delivers their results in submission order:
/// the ordering under `rwsecret decrypt --jobs N`, for a consumer that decrypts many messages
/// and wants their results in input order (submit from one thread; `deliver` sees each result
/// once, in order).
///
/// A result is delivered as soon as it and every result before it are done, from
/// whichever thread finished last, under one lock (so a pipe sees results as they
/// come, even while the main thread waits for more input). In-flight work is
/// bounded by `jobs`, and finished-but-undelivered results by a window of
/// `window(jobs:stretches:)` items (and, past `4 × jobs`, of `byteBudget` bytes), so
/// memory stays bounded whatever the input. With `jobs == 1` everything runs inline on
/// the calling thread; otherwise on up to `jobs` threads of the library's one pool
/// (`Scheduler`, widened to `jobs`), which the items' own parallel work shares.
///
/// **Stretches** (`decrypt`). The threads do not take the items in submission order:
/// each takes the item after the one it has just done while nobody has taken it, else
/// the first of the longest run of waiting items whose item before is done, else the
/// middle of the longest run. So each thread works through a stretch of consecutive
/// items, as N separate processes over 1/N of the input each would, and an item's
/// predecessor is usually done when it starts. That is what the chain needs (issue 22):
/// messages come in runs under one password, and a message whose predecessor is done
/// knows its password (the client's chain puts the last winner first). Taken in submission order, the N messages in
/// flight when the password changes would each try the previous one first: 1.25× the
/// keys of `--jobs 1` at N = 16 on runs of 1–40 messages under one of 3 passwords, 1.65×
/// under one of 64, against 1.01× now (the scale model, 3,000 messages).
public final class OrderedPipeline<Result>: @unchecked Sendable {
    // All mutable state is guarded by `lock`.
    private let jobs: Int
    private let stretches: Bool
    private let lock = ThreadLock()
    private let window: DispatchSemaphore
    /// At most `jobs` items run at once: the workers', and the deferred one `drain` runs here.
    private let running: DispatchSemaphore
    /// Counts the items waiting in `waiting` (a worker takes one per signal).
    private let ready = DispatchSemaphore(value: 0)
    private let group = DispatchGroup()
    /// Items submitted and not started, in submission order.
    private var waiting: [(sequence: Int, work: Work)] = []
    private var pending: [Int: Result] = [:]
    private var nextToSubmit = 0
    private var nextToDeliver = 0
    private var runningCount = 0
    /// The bytes each submitted and undelivered item was submitted with, and their sum.
    private var weights: [Int: Int] = [:]
    private var undeliveredBytes = 0
    /// Set while the submitting thread waits for `room` (for `byteBudget`).
    private var roomWanted = false
    private let room = DispatchSemaphore(value: 0)
    /// The item each worker thread ran last (`take`).
    private var lastByThread: [pthread_t: Int] = [:]
    /// Work held back by `submitDeferred` (touched by the submitting thread only).
    private var deferred: (Work, bytes: Int, inOrder: Bool)?
    /// The waiting items submitted `inOrder` (`take`).
    private var inOrder: Set<Int> = []
    private let deliver: (Result) -> Void

    /// A work item: told how many threads it may use, and its place in submission order.
    public typealias Work = @Sendable (_ threads: Int, _ sequence: Int) -> Result

    /// Items submitted and not delivered at most: room for `jobs` stretches of tens of items
    /// (the wider, the fewer stretches start with no item before them done: on runs of 1–40
    /// messages under one of 64 passwords, 16 threads derived 1.17× the keys of `--jobs 1` with
    /// 16 items a thread, 1.04× with 64, 1.00× with 128, in the scale model).
    public static func window(jobs: Int, stretches: Bool) -> Int { jobs == 1 ? 1 : (stretches ? 128 : 4) * jobs }
    /// Past `4 × jobs` items (the window before stretches), the bytes that submitted and
    /// undelivered items may hold at most (`submit(_:bytes:)`): 128 items of one thread
    /// each are wide stretches for lines of a few hundred bytes, and too many for wrapped
    /// messages of megabytes.
    public static var byteBudget: Int { 64 << 20 }

    /// `jobs`: the threads at most (1: everything runs on the calling thread).
    /// `deliver` is called in order, under the pipeline's lock. With `stretches`, the threads
    /// work through stretches of the items (see above); else they take them in order, in a
    /// window of `4 × jobs` (for work that gains nothing from its neighbours being done).
    public init(jobs: Int, stretches: Bool = false, deliver: @escaping (Result) -> Void) {
        self.jobs = jobs
        self.stretches = stretches
        self.deliver = deliver
        Scheduler.shared.widen(to: jobs)
        running = DispatchSemaphore(value: jobs)
        window = DispatchSemaphore(value: Self.window(jobs: jobs, stretches: stretches))
    }

    /// Runs `body` while holding the lock that deliveries hold (for state they share).
    public func synchronized<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock(body)
    }

    /// A result that is already known (a line that failed before any work).
    public func submit(result: Result) {
        startDeferred()
        let sequence = nextToSubmit
        nextToSubmit += 1
        if jobs > 1 { window.wait() }
        finish(sequence, result)
    }

    /// Queues `work`; blocks while the window is full.
    ///
    /// `work` is told how many threads it may use itself: the cores that no
    /// other item is using when it starts (so one message alone on a stream
    /// gets them all, and a full file gets one each).
    ///
    /// `bytes`: what the item holds until it is delivered, its input and its result (see
    /// `byteBudget`).
    ///
    /// `inOrder`: taken only in submission order, whatever the stretches (whole files, whose
    /// neighbours gain most from each other's winner).
    public func submit(_ work: @escaping Work, bytes: Int = 0, inOrder: Bool = false) {
        startDeferred()
        start(work, bytes: bytes, inOrder: inOrder, onThisThread: jobs == 1)
    }

    /// Like `submit(_:)`, but `work` waits for the next submission: if none comes before
    /// `drain()`, the calling thread runs it itself — for the last item of an input a
    /// hand-off to a worker would only add the wait for it to wake (0.5 ms and more here).
    /// Only for input whose next item comes without blocking (a regular file); call
    /// `startDeferred()` before reading anything that may block.
    public func submitDeferred(_ work: @escaping Work, bytes: Int = 0, inOrder: Bool = false) {
        startDeferred()
        deferred = (work, bytes, inOrder)
    }

    /// Queues the deferred work, if any, like any other.
    public func startDeferred() {
        guard let (work, bytes, inOrder) = deferred else { return }
        deferred = nil
        submit(work, bytes: bytes, inOrder: inOrder)
    }

    /// Numbers `work`, waits for room, and runs it on this thread or queues it for the workers.
    private func start(_ work: @escaping Work, bytes: Int, inOrder first: Bool = false, onThisThread: Bool) {
        let sequence = nextToSubmit
        nextToSubmit += 1
        if jobs > 1 {
            window.wait()
            waitForRoom(sequence: sequence, bytes: bytes)
        }
        if onThisThread {
            if jobs > 1 { running.wait() }
            let threads = lock.withLock {
                runningCount += 1
                return jobs - runningCount + 1
            }
            let result = work(threads, sequence)
            lock.withLock { runningCount -= 1 }
            if jobs > 1 { running.signal() }
            finish(sequence, result)
            return
        }
        group.enter()
        lock.withLock {
            waiting.append((sequence, work))
            if first { inOrder.insert(sequence) }
        }
        ready.signal()
        // One run of `serve` per item: it takes whichever waiting item is best for its thread.
        // `leave` only once the worker has let go of it and all it holds (the pipeline, and
        // through it the session and the chain's passwords): the run may end, and the process
        // exit, at once after it.
        Scheduler.shared.run({ [self] in serve() }, then: { [group] in group.leave() })
    }

    /// Waits until item `sequence` of `bytes` fits: fewer than `4 × jobs` items before it are
    /// undelivered, or their bytes and its own are within `byteBudget`; then counts its bytes.
    private func waitForRoom(sequence: Int, bytes: Int) {
        while lock.withLock({
            let fits = sequence - nextToDeliver < 4 * jobs || undeliveredBytes + bytes <= Self.byteBudget
            if fits {
                weights[sequence] = bytes
                undeliveredBytes += bytes
            } else {
                roomWanted = true
            }
            return !fits
        }) {
            room.wait()
        }
    }

    /// A worker's turn: takes the best waiting item for this thread (`take`), runs it, delivers,
    /// and lets go of it (the message, the chain's passwords) before `group.leave`.
    private func serve() {
        ready.wait()
        running.wait()
        var (sequence, work, threads): (Int, Work?, Int) = lock.withLock {
            let index = take(after: lastByThread[pthread_self()])
            let item = waiting.remove(at: index)
            inOrder.remove(item.sequence)
            lastByThread[pthread_self()] = item.sequence
            runningCount += 1
            return (item.sequence, item.work, jobs - runningCount + 1)
        }
        let result = work!(threads, sequence)
        work = nil
        lock.withLock { runningCount -= 1 }
        running.signal()
        finish(sequence, result)
    }

    /// Which waiting item a thread whose latest item was `last` takes (under the lock; `waiting`
    /// is not empty): the one after `last`; else the first of the longest run of consecutive
    /// waiting items whose item before is done (or was never work); else the middle of the
    /// longest run, which leaves its first half to the thread before it.
    private func take(after last: Int?) -> Int {
        guard stretches, !inOrder.contains(waiting[0].sequence) else { return 0 }
        if let last {
            var (low, high) = (0, waiting.count)
            while low < high {
                let middle = (low + high) / 2
                if waiting[middle].sequence <= last { low = middle + 1 } else { high = middle }
            }
            if low < waiting.count && waiting[low].sequence == last + 1 { return low }
        }
        var best: (index: Int, length: Int, known: Bool)?
        var start = 0
        while start < waiting.count {
            var end = start + 1
            while end < waiting.count && waiting[end].sequence == waiting[end - 1].sequence + 1 { end += 1 }
            let before = waiting[start].sequence - 1
            let known = before < nextToDeliver || pending[before] != nil
            let length = end - start
            if best == nil || (known ? 1 : 0, length) > (best!.known ? 1 : 0, best!.length) {
                best = (known ? start : start + length / 2, length, known)
            }
            start = end
        }
        return best!.index
    }

    /// Runs the deferred work here, if any, and waits until every result has been delivered.
    public func drain() {
        if let (work, bytes, inOrder) = deferred {
            deferred = nil
            // One taken in order waits its turn (here it would run before those waiting).
            start(work, bytes: bytes, inOrder: inOrder, onThisThread: !inOrder || jobs == 1)
        }
        group.wait()
    }

    private func finish(_ sequence: Int, _ result: Result) {
        lock.withLock {
            pending[sequence] = result
            while let ready = pending.removeValue(forKey: nextToDeliver) {
                deliver(ready)
                undeliveredBytes -= weights.removeValue(forKey: nextToDeliver) ?? 0
                nextToDeliver += 1
                if jobs > 1 { window.signal() }
                if roomWanted {
                    roomWanted = false
                    room.signal()
                }
            }
        }
    }
}
