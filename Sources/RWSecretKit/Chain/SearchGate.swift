import Dispatch

/// Lets messages decrypted at the same time share one walk of the chain.
///
/// Each message tries the chain's head at once (it usually opens it). A message
/// whose head failed walks the rest of the chain only inside `exclusively`, one
/// message at a time, and first tries the password that opened a message
/// meanwhile. Without the gate, messages already in flight all walked the chain
/// in its old order: 20 messages over a 64-password chain derived 292 keys on
/// two cores against 103 on one. Messages that wait here cost nothing; only
/// heads are tried in parallel.
public final class SearchGate: @unchecked Sendable {
    private let lock = DispatchSemaphore(value: 1)
    private let state = DispatchSemaphore(value: 1)
    private var latest: String?

    /// A gate for one run: share it between the messages decrypted at the same time.
    public init() {}

    /// Runs `body` while no other message walks the chain; `body` gets the name of
    /// the password that opened the latest message (nil before any).
    public func exclusively<T>(_ body: (_ latest: String?) -> T) -> T {
        lock.wait()
        defer { lock.signal() }
        return body(latestOpener)
    }

    /// Records that `name` opened a message.
    public func opened(_ name: String) {
        state.wait()
        latest = name
        state.signal()
    }

    /// The name of the password that opened the latest message, if any.
    public var latestOpener: String? {
        state.wait()
        defer { state.signal() }
        return latest
    }
}
