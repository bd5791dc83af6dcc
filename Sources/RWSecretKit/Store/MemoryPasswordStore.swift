/// Passwords held in memory only: for tests and for the passwords given for one run.
public final class MemoryPasswordStore: PasswordStore {
    private var entries: [StoredPassword]
    private let observers = PasswordStoreObservers()

    public init(_ entries: [StoredPassword] = []) { self.entries = entries }

    public var kind: StoreKind { .memory }
    public var location: String { "memory" }

    public func labels() -> [String] { entries.map(\.label) }
    public func passwords() -> [StoredPassword] { entries }

    @discardableResult
    public func add(_ secret: SecretBytes, label: String?) throws(StoreError) -> String {
        let label = try Self.labelToAdd(label, taken: labels())
        entries.append(StoredPassword(label: label, secret: secret))
        observers.notify(self, .added(label: label))
        return label
    }

    public func remove(labels: [String]) throws(StoreError) {
        try Self.requireKnown(labels, in: self.labels())
        entries.removeAll { labels.contains($0.label) }
        observers.notify(self, .removed(labels: labels))
    }

    public func addObserver(_ observer: any PasswordStoreObserver) { observers.add(observer) }
    public func removeObserver(_ observer: any PasswordStoreObserver) { observers.remove(observer) }
}
