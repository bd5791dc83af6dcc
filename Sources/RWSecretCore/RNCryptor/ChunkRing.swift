#if canImport(Glibc)
internal import Glibc
#endif

/// What the reader made of the next chunk.
enum ReadResult {
    /// The chunk's body bytes in its slot; `last`: the input has ended.
    case chunk(Range<Int>, last: Bool)
    case failed(VerifiedStream.Failure)
}

/// The first pass's schedule: chunks read once into a ring of slots, and lanes (each
/// candidate's HMAC, the decipher or the spool) that each take every chunk in order.
///
/// Any thread runs any lane that has a chunk waiting — the one furthest behind first,
/// so that slots come free — and only the calling thread reads (and reports progress).
/// A slot is read into again once every lane is done with its chunk. The other threads are
/// the scheduler's that are free to help (`Scheduler.fork`); with none (one thread, or all
/// busy) the calling thread does it all in turn.
final class ChunkRing: @unchecked Sendable {
    let slots: Int
    let slotSize: Int
    private let memory: UnsafeMutableRawBufferPointer
    // Shared state, touched under `mutex` only.
    private var bodies: [Range<Int>]
    private var pending: [Int]
    private var next: [Int] = []
    private var busy: [Bool] = []
    private var published = 0
    private var readingDone = false
    private var failure: VerifiedStream.Failure?
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// The ring's bytes in the run's one memory budget (`Scheduler.reserve`): tries of a costly
    /// KDF wait for them; the ring itself never waits (its few MiB are what a stream needs at least).
    private let reservation: Scheduler.Reservation

    init(slots: Int, slotSize: Int) {
        self.slots = slots
        self.slotSize = slotSize
        reservation = Scheduler.shared.reserve(slots * slotSize, within: .max)
        memory = .allocate(byteCount: slots * slotSize, alignment: 16)
        bodies = Array(repeating: 0..<0, count: slots)
        pending = Array(repeating: 0, count: slots)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        Crypto.cleanse(memory)
        memory.deallocate()
        reservation.release()
        pthread_mutex_destroy(mutex)
        pthread_cond_destroy(condition)
        mutex.deallocate()
        condition.deallocate()
    }

    func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: memory[(index * slotSize)..<((index + 1) * slotSize)])
    }

    /// Runs `lanes` lanes over every chunk, starting with the one already in slot 0
    /// (body `first`); `read(slot)` reads the next chunk into `slot`. Returns the
    /// first failure of a read or a lane (everything stops at it), nil when done.
    func run(threads: Int, lanes: Int, first: Range<Int>, firstIsLast: Bool,
             read: (Int) -> ReadResult, consume: (Int, UnsafeRawBufferPointer) -> VerifiedStream.Failure?) -> VerifiedStream.Failure? {
        next = Array(repeating: 0, count: lanes)
        busy = Array(repeating: false, count: lanes)
        publish(slot: 0, body: first, last: firstIsLast, lanes: lanes)
        // This thread reads (and runs lanes); the scheduler's threads free to help run lanes.
        Scheduler.shared.fork(width: threads) { helper in
            work(reader: helper == 0, lanes: lanes, read: read, consume: consume)
        }
        return firstFailure()
    }

    private func firstFailure() -> VerifiedStream.Failure? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return failure
    }

    /// Called with `mutex` held (or before any other thread exists).
    private func publish(slot: Int, body: Range<Int>, last: Bool, lanes: Int) {
        if !body.isEmpty {
            bodies[slot] = body
            pending[slot] = lanes
            published += 1
        }
        if last { readingDone = true }
    }

    private func work(reader: Bool, lanes: Int, read: (Int) -> ReadResult, consume: (Int, UnsafeRawBufferPointer) -> VerifiedStream.Failure?) {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        while failure == nil {
            let free = published % slots
            if reader && !readingDone && pending[free] == 0 {
                pthread_mutex_unlock(mutex)
                let result = read(free)
                pthread_mutex_lock(mutex)
                switch result {
                case .chunk(let body, let last): publish(slot: free, body: body, last: last, lanes: lanes)
                case .failed(let error): failure = error
                }
                pthread_cond_broadcast(condition)
                continue
            }
            var chosen = -1
            for lane in 0..<lanes where !busy[lane] && next[lane] < published {
                if chosen < 0 || next[lane] < next[chosen] { chosen = lane }
            }
            if chosen >= 0 {
                let slot = next[chosen] % slots
                let body = bodies[slot]
                busy[chosen] = true
                pthread_mutex_unlock(mutex)
                let error = consume(chosen, UnsafeRawBufferPointer(rebasing: self.slot(slot)[body]))
                pthread_mutex_lock(mutex)
                busy[chosen] = false
                next[chosen] += 1
                pending[slot] -= 1
                if let error, failure == nil { failure = error }
                pthread_cond_broadcast(condition)
                continue
            }
            if readingDone && next.allSatisfy({ $0 == published }) { return }
            pthread_cond_wait(condition, mutex)
        }
    }
}
