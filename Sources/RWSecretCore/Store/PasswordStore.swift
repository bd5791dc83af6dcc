/// A password and the label it is stored under.
public struct StoredPassword: Sendable {
    /// The label (1–64 characters, no control characters).
    public let label: String
    /// The secret, wiped when released.
    public let secret: SecretBytes

    /// A stored password.
    public init(label: String, secret: SecretBytes) {
        self.label = label
        self.secret = secret
    }
}

/// A password to store: its label (nil: the lowest free `password-N`) and its secret.
public struct PasswordToAdd: Sendable {
    /// The label to store it under; nil for the lowest free `password-N`.
    public let label: String?
    /// The secret, wiped when released.
    public let secret: SecretBytes

    /// A password to add under `label` (nil: the lowest free `password-N`).
    public init(label: String?, secret: SecretBytes) {
        self.label = label
        self.secret = secret
    }
}

/// Checks a password to add against the secrets stored at that moment (called under
/// the store's lock); returns every failure, or none to accept it.
package typealias StoredSecretsCheck = (_ secret: SecretBytes, _ stored: [SecretBytes]) -> [ValidationFailure]

/// An ordered collection of labelled passwords: the Adapter every password source sits behind.
///
/// Complete enough that a caller never needs the concrete type: what kind of store,
/// where, whether it is locked, and every change the tool offers.
///
/// Implementation requirements:
/// - `labels()` and `passwords()` return the stored order (the order added).
/// - `add`, `remove` and `rename` are all-or-nothing, happen under an exclusive lock
///   (label choice and the `check` of `add` included, so concurrent writers in other
///   processes neither take one label twice nor store one secret twice), and announce
///   the change to its observers (`ObservablePasswordStore`) after it has been made.
/// - No error's description may contain a secret.
/// - `Sendable`: a store may be used from several tasks at once (the client that reads it
///   may serve them all); each operation is safe against the others.
public protocol PasswordStore: AnyObject, Sendable {
    /// Where it lives: a collection path, a vault path, or `memory`.
    var location: String { get }

    /// Makes the store ready to use, so that errors surface before any work: throws
    /// `locked` for a locked keyring; asks an existing vault's passphrase and checks it.
    func open() throws(StoreError)
    /// The labels in stored order, without reading any secret.
    func labels() throws(StoreError) -> [String]
    /// Every password in stored order.
    func passwords() throws(StoreError) -> [StoredPassword]
    /// Stores every password in `passwords`, in order, or none of them. Refuses a
    /// label that exists (`labelsExist`, naming each), and a secret that `check`
    /// rejects given the secrets stored at that moment (`passwordRejected`).
    /// Returns the labels used.
    @discardableResult
    func add(_ passwords: [PasswordToAdd], check: (_ secret: SecretBytes, _ stored: [SecretBytes]) -> [ValidationFailure]) throws(StoreError) -> [String]
    /// Removes every label in `labels`, or none of them when one is unknown (`unknownLabels`).
    func remove(labels: [String]) throws(StoreError)
    /// Renames `label` to `newLabel`, keeping its place in the stored order. Throws
    /// `unknownLabels` when `label` is not stored, `labelExists` when `newLabel` is.
    func rename(_ label: String, to newLabel: String) throws(StoreError)
}

/// A store that announces its changes: a ``PasswordClient`` over it rebuilds its chain on
/// each (the three stores of the library are observable). A custom store conforms to be seen
/// changing: it keeps a ``PasswordStoreObservers`` and notifies it after each change.
public protocol ObservablePasswordStore: PasswordStore {
    /// Registers `observer` (held weakly) for changes made through this store.
    func addObserver(_ observer: any PasswordStoreObserver)
    /// Unregisters `observer`.
    func removeObserver(_ observer: any PasswordStoreObserver)
}

extension PasswordStore {
    /// Stores `secret` under `label`, or under the lowest free `password-N` when `label` is nil,
    /// refusing a secret that is already stored. Returns the label used.
    @discardableResult
    public func add(_ secret: SecretBytes, label: String?) throws(StoreError) -> String {
        try add([PasswordToAdd(label: label, secret: secret)])[0]
    }

    /// Stores every password in `passwords`, or none, refusing labels that exist and
    /// secrets already stored (each password is stored once). Returns the labels used.
    @discardableResult
    public func add(_ passwords: [PasswordToAdd]) throws(StoreError) -> [String] {
        try add(passwords) { secret, stored in
            NotAlreadyStoredValidator(stored: stored).validate(secret).map { [$0] } ?? []
        }
    }

    /// Stores `secret` under `label` (or the lowest free `password-N`) when `check` accepts it
    /// given the secrets stored at that moment. Returns the label used.
    @discardableResult
    package func add(_ secret: SecretBytes, label: String?, check: StoredSecretsCheck) throws(StoreError) -> String {
        try add([PasswordToAdd(label: label, secret: secret)], check: check)[0]
    }
}

/// A change made through a store.
public enum PasswordStoreChange: Sendable, Equatable {
    /// A password was added under `label`.
    case added(label: String)
    /// The passwords with `labels` were removed.
    case removed(labels: [String])
    /// A password was relabelled.
    case renamed(from: String, to: String)
}

/// Observes a store's changes; the password chain rebuilds itself on each.
public protocol PasswordStoreObserver: AnyObject, Sendable {
    /// Called after `change` was made through `store`.
    func passwordStore(_ store: any PasswordStore, didChange change: PasswordStoreChange)
}

/// The bookkeeping for a store's observers: weak references, notified in registration order.
/// Thread-safe: the list is changed under a lock, and observers are called outside it.
public final class PasswordStoreObservers: Sendable {
    private struct Weak { weak var observer: (any PasswordStoreObserver)? }
    private let entries = LockedState<[Weak]>([])

    /// No observer yet.
    public init() {}

    /// Registers `observer`, held weakly (once, however often it is added).
    public func add(_ observer: any PasswordStoreObserver) {
        entries.withLock { entries in
            entries.removeAll { $0.observer == nil || $0.observer === observer }
            entries.append(Weak(observer: observer))
        }
    }

    /// Unregisters `observer`.
    public func remove(_ observer: any PasswordStoreObserver) {
        entries.withLock { entries in entries.removeAll { $0.observer == nil || $0.observer === observer } }
    }

    /// Tells every live observer about `change`.
    public func notify(_ store: any PasswordStore, _ change: PasswordStoreChange) {
        let live = entries.withLock { entries in
            entries.removeAll { $0.observer == nil }
            return entries.compactMap(\.observer)
        }
        for observer in live { observer.passwordStore(store, didChange: change) }
    }
}

extension PasswordStore {
    /// The lowest `password-N` (N ≥ 1) not in `taken`.
    package static func nextFreeLabel(_ taken: some Sequence<String>) -> String {
        let used = Set(taken)
        var n = 1
        while used.contains("password-\(n)") { n += 1 }
        return "password-\(n)"
    }

    /// The label `add` stores a password under: `label`, or else the lowest free
    /// `password-N`. Throws when it is not a valid label or `taken` already has it.
    package static func labelToAdd(_ label: String?, taken: [String]) throws(StoreError) -> String {
        let label = label ?? nextFreeLabel(taken)
        try PasswordLabel.validate(label)
        guard !taken.contains(label) else { throw .labelExists(label) }
        return label
    }

    /// The labels for `passwords` (nil: the lowest free `password-N` not yet taken, in turn),
    /// checked against `taken`: `invalidLabel`, or `labelsExist` naming every clash.
    /// `check` runs on each secret against the stored ones and those added before it.
    package static func plan(_ passwords: [PasswordToAdd], taken: [String], stored: [SecretBytes],
                            check: StoredSecretsCheck) throws(StoreError) -> [String] {
        var used = taken
        var clashes: [String] = []
        var labels: [String] = []
        for password in passwords {
            let label = password.label ?? nextFreeLabel(used)
            try PasswordLabel.validate(label)
            if used.contains(label) { if !clashes.contains(label) { clashes.append(label) } } else { used.append(label) }
            labels.append(label)
        }
        guard clashes.isEmpty else {
            throw passwords.count == 1 ? .labelExists(clashes[0]) : .labelsExist(clashes)
        }
        var secrets = stored
        for (password, label) in zip(passwords, labels) {
            let failures = check(password.secret, secrets)
            guard failures.isEmpty else {
                throw .passwordRejected(label: passwords.count == 1 ? nil : label, failures)
            }
            secrets.append(password.secret)
        }
        return labels
    }

    /// The checks of `rename`: `label` is stored, `newLabel` is valid and free.
    package static func checkRename(_ label: String, to newLabel: String, in existing: [String]) throws(StoreError) {
        try PasswordLabel.validate(newLabel)
        try requireKnown([label], in: existing)
        if newLabel != label, existing.contains(newLabel) { throw .labelExists(newLabel) }
    }

    /// Throws `unknownLabels` naming the labels of `labels` that `existing` lacks
    /// (each once, in the order given): `remove` removes all or nothing.
    package static func requireKnown(_ labels: [String], in existing: some Sequence<String>) throws(StoreError) {
        let known = Set(existing)
        var unknown: [String] = []
        for label in labels where !known.contains(label) && !unknown.contains(label) { unknown.append(label) }
        guard unknown.isEmpty else { throw .unknownLabels(unknown) }
    }
}
