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
        let label = label ?? Self.nextFreeLabel(labels())
        try PasswordLabel.validate(label)
        guard !entries.contains(where: { $0.label == label }) else { throw .labelExists(label) }
        entries.append(StoredPassword(label: label, secret: secret))
        observers.notify(self, .added(label: label))
        return label
    }

    public func remove(labels: [String]) throws(StoreError) {
        let unknown = labels.filter { label in !entries.contains { $0.label == label } }
        guard unknown.isEmpty else { throw .unknownLabels(unknown) }
        entries.removeAll { labels.contains($0.label) }
        observers.notify(self, .removed(labels: labels))
    }

    public func addObserver(_ observer: any PasswordStoreObserver) { observers.add(observer) }
    public func removeObserver(_ observer: any PasswordStoreObserver) { observers.remove(observer) }
}
