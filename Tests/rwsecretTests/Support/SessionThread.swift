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
    private let condition = NSCondition()
    private var work: [() -> Void] = []
    private var stopping = false
    /// Why the thread could not join a new session keyring; nil when it did.
    private(set) var refusal: StoreError?
    private var started = false

    /// Starts the thread and waits until it has joined its session keyring.
    init() {
        let thread = Thread { [self] in
            var failure: StoreError?
            do throws(StoreError) { try SessionKeyring.joinNewSession() } catch { failure = error }
            condition.lock()
            refusal = failure
            started = true
            condition.broadcast()
            while true {
                while work.isEmpty && !stopping { condition.wait() }
                if work.isEmpty { condition.unlock(); return }
                let next = work.removeFirst()
                condition.unlock()
                next()
                condition.lock()
            }
        }
        thread.start()
        condition.lock()
        while !started { condition.wait() }
        condition.unlock()
    }

    deinit {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `body` on the thread, in its session keyring, and waits for its result. Make no
    /// `#expect` inside: test expectations belong to the test's own task.
    func run<T>(_ body: @escaping () throws -> T) throws -> T {
        if let refusal { throw refusal }
        nonisolated(unsafe) var result: Result<T, any Error>?
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        work.append {
            result = Result { try body() }
            done.signal()
        }
        condition.broadcast()
        condition.unlock()
        done.wait()
        return try result!.get()
    }
}
