/// Passwords held in memory only: for tests and for the passwords given for one run.
public final class MemoryPasswordStore: PasswordStore {
    private var entries: [StoredPassword]
    private let observers = PasswordStoreObservers()

    public init(_ entries: [StoredPassword] = []) { self.entries = entries }

    public var kind: StoreKind { .memory }
    public var location: String { "memory" }
    public var isLocked: Bool { false }

    public func open() {}
    public func labels() -> [String] { entries.map(\.label) }
    public func passwords() -> [StoredPassword] { entries }

    @discardableResult
    public func add(_ passwords: [PasswordToAdd], check: StoredSecretsCheck) throws(StoreError) -> [String] {
        let labels = try Self.plan(passwords, taken: self.labels(), stored: entries.map(\.secret), check: check)
        for (password, label) in zip(passwords, labels) {
            entries.append(StoredPassword(label: label, secret: password.secret))
        }
        for label in labels { observers.notify(self, .added(label: label)) }
        return labels
    }

    public func remove(labels: [String]) throws(StoreError) {
        try Self.requireKnown(labels, in: self.labels())
        entries.removeAll { labels.contains($0.label) }
        observers.notify(self, .removed(labels: labels))
    }

    public func rename(_ label: String, to newLabel: String) throws(StoreError) {
        try Self.checkRename(label, to: newLabel, in: labels())
        if let index = entries.firstIndex(where: { $0.label == label }) {
            entries[index] = StoredPassword(label: newLabel, secret: entries[index].secret)
        }
        observers.notify(self, .renamed(from: label, to: newLabel))
    }

    public func addObserver(_ observer: any PasswordStoreObserver) { observers.add(observer) }
    public func removeObserver(_ observer: any PasswordStoreObserver) { observers.remove(observer) }
}
