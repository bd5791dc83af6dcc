import RWSecretKit

/// Records every change a store announces, in order.
final class RecordingObserver: PasswordStoreObserver {
    private let recorded = LockedState<[PasswordStoreChange]>([])
    var changes: [PasswordStoreChange] { recorded.withLock { $0 } }

    func passwordStore(_ store: any PasswordStore, didChange change: PasswordStoreChange) {
        recorded.withLock { $0.append(change) }
    }
}

extension SecretBytes {
    /// The bytes as a String, for assertions in tests only.
    var testString: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}
