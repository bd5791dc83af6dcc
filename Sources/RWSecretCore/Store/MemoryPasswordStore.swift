/// Passwords held in memory only: for tests and for the passwords given for one run.
///
/// `Sendable`: its entries are read and changed under a lock.
public final class MemoryPasswordStore: ObservablePasswordStore {
    private let entries: LockedState<[StoredPassword]>
    /// The identities (`IdentityStore`), apart from the passwords.
    fileprivate let identityEntries = LockedState<[StoredIdentity]>([])
    private let observers = PasswordStoreObservers()

    /// A store holding `entries`, in that order.
    public init(_ entries: [StoredPassword] = []) { self.entries = LockedState(entries) }

    /// Where it lives.
    public var location: String { "memory" }

    /// Makes the store ready to use (see `PasswordStore.open()`).
    public func open() {}
    /// The labels in stored order, without reading any secret.
    public func labels() -> [String] { entries.withLock { $0.map(\.label) } }
    /// Every password in stored order.
    public func passwords() -> [StoredPassword] { entries.withLock { $0 } }

    /// Adds `passwords` all or nothing, each checked by `check` against what is stored (see `PasswordStore`).
    @discardableResult
    public func add(_ passwords: [PasswordToAdd], check: (_ secret: SecretBytes, _ stored: [SecretBytes]) -> [ValidationFailure]) throws(StoreError) -> [String] {
        let labels = try entries.withLock { (entries: inout [StoredPassword]) throws(StoreError) -> [String] in
            let labels = try Self.plan(passwords, taken: entries.map(\.label), stored: entries.map(\.secret), check: check)
            for (password, label) in zip(passwords, labels) {
                entries.append(StoredPassword(label: label, secret: password.secret))
            }
            return labels
        }
        for label in labels { observers.notify(self, .added(label: label)) }
        return labels
    }

    /// Removes the passwords with `labels`, all or nothing (unknown labels: `unknownLabels`).
    public func remove(labels: [String]) throws(StoreError) {
        try entries.withLock { (entries: inout [StoredPassword]) throws(StoreError) in
            try Self.requireKnown(labels, in: entries.map(\.label))
            entries.removeAll { labels.contains($0.label) }
        }
        observers.notify(self, .removed(labels: labels))
    }

    /// Gives the password labelled `label` the label `newLabel`.
    public func rename(_ label: String, to newLabel: String) throws(StoreError) {
        try entries.withLock { (entries: inout [StoredPassword]) throws(StoreError) in
            try Self.checkRename(label, to: newLabel, in: entries.map(\.label))
            if let index = entries.firstIndex(where: { $0.label == label }) {
                entries[index] = StoredPassword(label: newLabel, secret: entries[index].secret)
            }
        }
        observers.notify(self, .renamed(from: label, to: newLabel))
    }

    /// Starts telling `observer` about changes made through this store.
    public func addObserver(_ observer: any PasswordStoreObserver) { observers.add(observer) }
    /// Stops telling `observer` about changes.
    public func removeObserver(_ observer: any PasswordStoreObserver) { observers.remove(observer) }
}

extension MemoryPasswordStore: IdentityStore {
    /// Every identity in the order added.
    public func identities() -> [StoredIdentity] { identityEntries.withLock { $0 } }

    /// Adds `identities` all or nothing.
    @discardableResult
    public func addIdentities(_ identities: [IdentityToAdd]) throws(StoreError) -> [String] {
        try identityEntries.withLock { (entries: inout [StoredIdentity]) throws(StoreError) -> [String] in
            let labels = try Self.planIdentities(identities, stored: entries)
            for (identity, label) in zip(identities, labels) {
                entries.append(StoredIdentity(label: label, kind: identity.kind, secret: identity.secret))
            }
            return labels
        }
    }

    /// Removes the identities with `labels`, all or nothing.
    public func removeIdentities(labels: [String]) throws(StoreError) {
        try identityEntries.withLock { (entries: inout [StoredIdentity]) throws(StoreError) in
            try Self.requireKnown(labels, in: entries.map(\.label))
            entries.removeAll { labels.contains($0.label) }
        }
    }

    /// Gives the identity labelled `label` the label `newLabel`, in its place.
    public func renameIdentity(_ label: String, to newLabel: String) throws(StoreError) {
        try identityEntries.withLock { (entries: inout [StoredIdentity]) throws(StoreError) in
            try Self.checkRename(label, to: newLabel, in: entries.map(\.label))
            if let index = entries.firstIndex(where: { $0.label == label }) {
                let old = entries[index]
                entries[index] = StoredIdentity(label: newLabel, kind: old.kind, secret: old.secret)
            }
        }
    }
}
