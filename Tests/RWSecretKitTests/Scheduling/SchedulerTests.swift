import Dispatch
import Testing
import RWSecretKit

/// The scheduler's rules that its users rely on (issue 33 item 3), on a scheduler of the test's own.
@Suite("Scheduler: one pool, optional helpers, one memory budget")
struct SchedulerTests {
    // A fork inside a task must not wait for a pool thread: in a full pipeline every thread is
    // busy, and a fork that waited for one would never end.
    @Test("a fork on every busy pool thread runs on its caller alone: every index done, no thread past the pool")
    func forkOnABusyPool() throws {
        let scheduler = Scheduler()
        scheduler.widen(to: 2)
        let arrived = DispatchSemaphore(value: 0)
        let bothIn = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let sums = ResultSlots<Int>(count: 2)
        for task in 0..<2 {
            done.enter()
            scheduler.run({
                // Both pool threads are held here before either forks.
                arrived.signal()
                _ = bothIn.wait(timeout: .now() + 60)
                let slots = ResultSlots<Int>(count: 1000)
                scheduler.forEach(1000, width: 8) { slots[$0] = $0 }
                sums[task] = slots.values.reduce(0, +)
            }, then: { done.leave() })
        }
        #expect(arrived.wait(timeout: .now() + 60) == .success)
        #expect(arrived.wait(timeout: .now() + 60) == .success)
        bothIn.signal()
        bothIn.signal()
        #expect(done.wait(timeout: .now() + 60) == .success, "a fork waited for a thread")
        #expect(sums.values == [499_500, 499_500])
        #expect(scheduler.threadsStarted == 2)
    }

    @Test("a fork from outside the pool uses at most width − 1 pool threads, and each body runs once per index")
    func forkWidth() {
        let scheduler = Scheduler()
        let counts = ResultSlots<Int>(count: 64)
        scheduler.forEach(64, width: 3) { counts[$0] = (counts[$0] ?? 0) + 1 }
        #expect(counts.values == Array(repeating: 1, count: 64))
        #expect(scheduler.threadsStarted <= 2)
    }

    @Test("memory: reservations that fit hold together; one larger than the limit runs alone; a release lets a waiting one in")
    func memoryBudget() throws {
        let scheduler = Scheduler()
        let a = scheduler.reserve(30, within: 100)
        let b = scheduler.reserve(60, within: 100)
        #expect(scheduler.bytesReserved == 90)
        b.release()
        a.release()
        let alone = scheduler.reserve(500, within: 100)
        #expect(scheduler.bytesReserved == 500)
        // Another 60 does not fit beside it: it gets in once the 500 are released.
        let got = LockedState(false)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let reservation = scheduler.reserve(60, within: 100)
            got.withLock { $0 = true }
            reservation.release()
            finished.signal()
        }
        #expect(!got.withLock { $0 }, "a reservation past the limit did not wait")
        alone.release()
        #expect(finished.wait(timeout: .now() + 60) == .success)
        #expect(got.withLock { $0 })
        #expect(scheduler.bytesReserved == 0)
    }

    // Whole files at --jobs N each try within a share of --memory (KindWalk): the shares are
    // views of the run's one budget, and N of them fit in it together.
    @Test("memory: shares of the run's budget (limitMemory) hold together, each within its own view")
    func sharesOfTheRunsBudget() {
        let scheduler = Scheduler()
        scheduler.limitMemory(to: 100)
        let first = scheduler.reserve(50, within: 50)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let second = scheduler.reserve(50, within: 50)
            finished.signal()
            second.release()
        }
        #expect(finished.wait(timeout: .now() + 60) == .success, "the second share waited for the first")
        first.release()
    }
}
