/// Passwords held in memory only: for tests and for the passwords given for one run.
public final class MemoryPasswordStore: PasswordStore {
    private var entries: [StoredPassword]
    /// The identities (`IdentityStore`), apart from the passwords.
    fileprivate var identityEntries: [StoredIdentity] = []
    private let observers = PasswordStoreObservers()

    /// A store holding `entries`, in that order.
    public init(_ entries: [StoredPassword] = []) { self.entries = entries }

    /// The kind of store.
    public var kind: StoreKind { .memory }
    /// Where it lives.
    public var location: String { "memory" }
    /// Whether the store was found locked.
    public var isLocked: Bool { false }

    /// Makes the store ready to use (see `PasswordStore.open()`).
    public func open() {}
    /// The labels in stored order, without reading any secret.
    public func labels() -> [String] { entries.map(\.label) }
    /// Every password in stored order.
    public func passwords() -> [StoredPassword] { entries }

    /// Adds `passwords` all or nothing, each checked by `check` against what is stored (see `PasswordStore`).
    @discardableResult
    public func add(_ passwords: [PasswordToAdd], check: StoredSecretsCheck) throws(StoreError) -> [String] {
        let labels = try Self.plan(passwords, taken: self.labels(), stored: entries.map(\.secret), check: check)
        for (password, label) in zip(passwords, labels) {
            entries.append(StoredPassword(label: label, secret: password.secret))
        }
        for label in labels { observers.notify(self, .added(label: label)) }
        return labels
    }

    /// Removes the passwords with `labels`, all or nothing (unknown labels: `unknownLabels`).
    public func remove(labels: [String]) throws(StoreError) {
        try Self.requireKnown(labels, in: self.labels())
        entries.removeAll { labels.contains($0.label) }
        observers.notify(self, .removed(labels: labels))
    }

    /// Gives the password labelled `label` the label `newLabel`.
    public func rename(_ label: String, to newLabel: String) throws(StoreError) {
        try Self.checkRename(label, to: newLabel, in: labels())
        if let index = entries.firstIndex(where: { $0.label == label }) {
            entries[index] = StoredPassword(label: newLabel, secret: entries[index].secret)
        }
        observers.notify(self, .renamed(from: label, to: newLabel))
    }

    /// Starts telling `observer` about changes made through this store.
    public func addObserver(_ observer: any PasswordStoreObserver) { observers.add(observer) }
    /// Stops telling `observer` about changes.
    public func removeObserver(_ observer: any PasswordStoreObserver) { observers.remove(observer) }
}

extension MemoryPasswordStore: IdentityStore {
    package func identities() -> [StoredIdentity] { identityEntries }

    @discardableResult
    package func addIdentities(_ identities: [IdentityToAdd]) throws(StoreError) -> [String] {
        let labels = try Self.planIdentities(identities, stored: identityEntries)
        for (identity, label) in zip(identities, labels) {
            identityEntries.append(StoredIdentity(label: label, kind: identity.kind, secret: identity.secret))
        }
        return labels
    }

    package func removeIdentities(labels: [String]) throws(StoreError) {
        try Self.requireKnown(labels, in: identityEntries.map(\.label))
        identityEntries.removeAll { labels.contains($0.label) }
    }

    package func renameIdentity(_ label: String, to newLabel: String) throws(StoreError) {
        try Self.checkRename(label, to: newLabel, in: identityEntries.map(\.label))
        if let index = identityEntries.firstIndex(where: { $0.label == label }) {
            let old = identityEntries[index]
            identityEntries[index] = StoredIdentity(label: newLabel, kind: old.kind, secret: old.secret)
        }
    }
}
