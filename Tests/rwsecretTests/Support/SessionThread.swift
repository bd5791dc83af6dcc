import Foundation
import RWSecretKit

/// A thread of a test's own that has joined a new, empty session keyring (what `keyctl
/// new_session` does), on which the test runs the children that must share that session.
///
/// A session keyring belongs to a thread (Linux 3.8 and later) and passes to the threads
/// and children it starts. Joined on a shared test thread, it would stay with every later
/// test that thread runs, and no test could start a child without a session keyring of
/// its own (what cron, or a tmux started from a non-login shell, gives).
final class SessionThread: @unchecked Sendable {
    /// What the thread and its users share (the thread holds this, not the `SessionThread`,
    /// so that releasing the last `SessionThread` ends the thread).
    private final class Queue: @unchecked Sendable {
        let condition = NSCondition()
        var work: [() -> Void] = []
        var stopping = false
        var started = false
        var refusal: StoreError?
    }

    private let queue = Queue()

    /// Why the thread could not join a new session keyring; nil when it did.
    var refusal: StoreError? { queue.refusal }

    /// Starts the thread and waits until it has joined its session keyring.
    init() {
        let queue = self.queue
        Thread {
            var failure: StoreError?
            do throws(StoreError) { try SessionKeyring.joinNewSession() } catch { failure = error }
            queue.condition.lock()
            queue.refusal = failure
            queue.started = true
            queue.condition.broadcast()
            while true {
                while queue.work.isEmpty && !queue.stopping { queue.condition.wait() }
                if queue.work.isEmpty { queue.condition.unlock(); return }
                let next = queue.work.removeFirst()
                queue.condition.unlock()
                next()
                queue.condition.lock()
            }
        }.start()
        queue.condition.lock()
        while !queue.started { queue.condition.wait() }
        queue.condition.unlock()
    }

    deinit {
        queue.condition.lock()
        queue.stopping = true
        queue.condition.broadcast()
        queue.condition.unlock()
    }

    /// Runs `body` on the thread, in its session keyring, and waits for its result. Make no
    /// `#expect` inside: test expectations belong to the test's own task.
    func run<T>(_ body: @escaping () throws -> T) throws -> T {
        if let refusal { throw refusal }
        nonisolated(unsafe) var result: Result<T, any Error>?
        let done = DispatchSemaphore(value: 0)
        queue.condition.lock()
        queue.work.append {
            result = Result { try body() }
            done.signal()
        }
        queue.condition.broadcast()
        queue.condition.unlock()
        done.wait()
        return try result!.get()
    }
}
