/// A password and the label it is stored under.
public struct StoredPassword: Sendable {
    /// The label (1–64 characters, no control characters).
    public let label: String
    /// The secret, wiped when released.
    public let secret: SecretBytes

    public init(label: String, secret: SecretBytes) {
        self.label = label
        self.secret = secret
    }
}

/// Which kind of store this is (the `--store` values, plus the in-memory store).
public enum StoreKind: String, Sendable {
    case keyring, file, memory
}

/// An ordered collection of labelled passwords: the Adapter every password source sits behind.
///
/// Implementation requirements:
/// - `labels()` and `passwords()` return the stored order (the order added).
/// - `add` and `remove` are all-or-nothing, and announce the change to every
///   observer after it has been made (`PasswordStoreObservers`).
/// - No error's description may contain a secret.
public protocol PasswordStore: AnyObject {
    /// The kind of store.
    var kind: StoreKind { get }
    /// Where it lives: a collection path, a vault path, or `memory`.
    var location: String { get }

    /// The labels in stored order, without reading any secret.
    func labels() throws(StoreError) -> [String]
    /// Every password in stored order.
    func passwords() throws(StoreError) -> [StoredPassword]
    /// Stores `secret` under `label`, or under the lowest free `password-N` when `label` is nil.
    /// Returns the label used. Refuses a label that exists (`labelExists`).
    @discardableResult
    func add(_ secret: SecretBytes, label: String?) throws(StoreError) -> String
    /// Removes every label in `labels`, or none of them when one is unknown (`unknownLabels`).
    func remove(labels: [String]) throws(StoreError)

    /// Registers `observer` (held weakly) for changes made through this store.
    func addObserver(_ observer: any PasswordStoreObserver)
    /// Unregisters `observer`.
    func removeObserver(_ observer: any PasswordStoreObserver)
}

/// A change made through a store.
public enum PasswordStoreChange: Sendable, Equatable {
    case added(label: String)
    case removed(labels: [String])
    case reordered
}

/// Observes a store's changes; the password chain rebuilds itself on each.
public protocol PasswordStoreObserver: AnyObject {
    func passwordStore(_ store: any PasswordStore, didChange change: PasswordStoreChange)
}

/// The bookkeeping for a store's observers: weak references, notified in registration order.
public final class PasswordStoreObservers {
    private struct Weak { weak var observer: (any PasswordStoreObserver)? }
    private var entries: [Weak] = []

    public init() {}

    public func add(_ observer: any PasswordStoreObserver) {
        entries.removeAll { $0.observer == nil || $0.observer === observer }
        entries.append(Weak(observer: observer))
    }

    public func remove(_ observer: any PasswordStoreObserver) {
        entries.removeAll { $0.observer == nil || $0.observer === observer }
    }

    /// Tells every live observer about `change`.
    public func notify(_ store: any PasswordStore, _ change: PasswordStoreChange) {
        entries.removeAll { $0.observer == nil }
        for entry in entries { entry.observer?.passwordStore(store, didChange: change) }
    }
}

extension PasswordStore {
    /// The lowest `password-N` (N ≥ 1) not in `taken`.
    public static func nextFreeLabel(_ taken: some Sequence<String>) -> String {
        let used = Set(taken)
        var n = 1
        while used.contains("password-\(n)") { n += 1 }
        return "password-\(n)"
    }

    /// The label `add` stores a password under: `label`, or else the lowest free
    /// `password-N`. Throws when it is not a valid label or `taken` already has it.
    public static func labelToAdd(_ label: String?, taken: [String]) throws(StoreError) -> String {
        let label = label ?? nextFreeLabel(taken)
        try PasswordLabel.validate(label)
        guard !taken.contains(label) else { throw .labelExists(label) }
        return label
    }

    /// Throws `unknownLabels` naming the labels of `labels` that `existing` lacks
    /// (each once, in the order given): `remove` removes all or nothing.
    public static func requireKnown(_ labels: [String], in existing: some Sequence<String>) throws(StoreError) {
        let known = Set(existing)
        var unknown: [String] = []
        for label in labels where !known.contains(label) && !unknown.contains(label) { unknown.append(label) }
        guard unknown.isEmpty else { throw .unknownLabels(unknown) }
    }
}
