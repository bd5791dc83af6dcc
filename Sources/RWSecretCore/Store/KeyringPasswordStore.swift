#if canImport(Glibc)
internal import Glibc
#endif

/// Passwords in the Secret Service keyring (gnome-keyring, KeePassXC…), through libsecret.
///
/// One item per password in the default collection: schema `org.rwsecret.Password`,
/// attributes `label` and `order` (a creation counter, so `labels()` keeps the
/// order passwords were added), item label `rwsecret: LABEL`. Label choice and
/// writing happen under an exclusive lock file so that concurrent `add`s cannot
/// take the same label.
///
/// libsecret is loaded only when a keyring store is opened (a program that never opens
/// one needs no libsecret at run time).
///
/// `Sendable`: it holds no state of its own beyond the connection; every change takes the
/// lock file (which also serializes the tasks of one process) around its read and write.
public final class KeyringPasswordStore: ObservablePasswordStore {
    private let client: SecretServiceClient
    private let lockPath: String
    private let lockWaiting: @Sendable () -> Void
    private let observers = PasswordStoreObservers()

    /// The default collection's object path.
    public let location: String
    /// Whether the default collection was locked when the store was opened.
    public let isLocked: Bool


    /// Opens the keyring's default collection. A locked collection still opens
    /// (so it can be reported); its operations then throw `locked`.
    ///
    /// Label choice and writing happen under the lock file the `rwsecret` tool uses,
    /// `$XDG_RUNTIME_DIR/rwsecret.lock` (without a runtime folder: `rwsecret.lock` beside
    /// the default vault, in `$XDG_DATA_HOME/rwsecret` or `~/.local/share/rwsecret`), so
    /// a program and the tool adding passwords at once never take one label twice.
    /// - Parameter lockWaiting: called once when another process has held the lock for a second.
    public convenience init(lockWaiting: @escaping @Sendable () -> Void = {}) throws(StoreError) {
        try self.init(lockPath: Self.defaultLockPath(Self.environment(["XDG_RUNTIME_DIR", "XDG_DATA_HOME", "HOME"])), lockWaiting: lockWaiting)
    }

    /// The lock file the tool and the library take around keyring changes, given `environment`
    /// (`XDG_RUNTIME_DIR`, `XDG_DATA_HOME`, `HOME`): what ``init(lockWaiting:)`` uses with the
    /// process environment. For a program that resolves paths from an environment of its own.
    public static func defaultLockPath(_ environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/rwsecret.lock" }
        return folder(of: VaultPasswordStore.defaultPath(environment)) + "/rwsecret.lock"
    }

    /// The process environment's values of `names` (those set).
    private static func environment(_ names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names { if let value = getenv(name) { values[name] = String(cString: value) } }
        return values
    }

    /// The keyring store with its lock file at ``defaultLockPath(_:)`` of `environment`
    /// instead of the process environment's (a program that resolves paths from an environment
    /// of its own, as the tool does). The lock file is never one a caller invents: every program
    /// adding to one keyring must take the same one.
    /// - Parameters:
    ///   - environment: the values of `XDG_RUNTIME_DIR`, `XDG_DATA_HOME` and `HOME` to resolve the lock file from.
    ///   - lockWaiting: called once when another process has held the lock for a second.
    public convenience init(environment: [String: String], lockWaiting: @escaping @Sendable () -> Void = {}) throws(StoreError) {
        try self.init(lockPath: Self.defaultLockPath(environment), lockWaiting: lockWaiting)
    }

    /// The keyring store with its lock file at `lockPath`.
    package init(lockPath: String, lockWaiting: @escaping @Sendable () -> Void = {}) throws(StoreError) {
        self.lockWaiting = lockWaiting
        client = try SecretServiceClient.shared()
        guard let collection = try client.defaultCollection() else {
            throw SecretServiceClient.storeError(
                domain: "", code: 0, message: "Object does not exist at path default", operation: "open the keyring")
        }
        self.lockPath = lockPath
        location = collection.path
        isLocked = collection.locked
    }

    /// Whether some process owns `org.freedesktop.secrets` on the session bus (nothing is activated).
    public static func secretServiceIsRunning() throws(StoreError) -> Bool {
        try SecretServiceClient.secretServiceIsRunning()
    }

    /// Starts loading libsecret, connecting to the session bus and, with `askingTheBus`,
    /// asking it whether a Secret Service runs, on a thread of its own (nothing is sent to the
    /// Secret Service); returns at once. For a process that will probably read the keyring:
    /// call it first thing. The first keyring call waits for it to end.
    public static func startWarmUp(askingTheBus: Bool) { SecretServiceClient.startWarmUp(askingTheBus: askingTheBus) }

    /// The labels in stored order, without reading any secret.
    public func labels() throws(StoreError) -> [String] {
        try items().map(\.label)
    }

    /// Every password in stored order.
    public func passwords() throws(StoreError) -> [StoredPassword] { try itemsWithSecrets() }

    /// Every password in the order added.
    private func itemsWithSecrets() throws(StoreError) -> [StoredPassword] {
        let entries = try client.itemsWithSecrets()
        if entries.isEmpty, try isLockedNow() { throw .locked(advice: SecretServiceClient.lockedAdvice) }
        var result: [StoredPassword] = []
        for entry in entries.sorted(by: { ($0.item.order, $0.item.label) < ($1.item.order, $1.item.label) }) {
            // Listed but unreadable: a locked item or collection.
            guard let secret = entry.secret else { throw emptyAnswer() }
            result.append(StoredPassword(label: entry.item.label, secret: secret))
        }
        return result
    }

    /// Throws `locked` when the collection was locked when opened.
    public func open() throws(StoreError) {
        if isLocked { throw .locked(advice: SecretServiceClient.lockedAdvice) }
    }

    /// Adds `passwords` all or nothing, each checked by `check` against what is stored (see `PasswordStore`).
    @discardableResult
    public func add(_ passwords: [PasswordToAdd], check: (_ secret: SecretBytes, _ stored: [SecretBytes]) -> [ValidationFailure]) throws(StoreError) -> [String] {
        let lock = try FileLock(path: lockPath, waiting: lockWaiting)
        defer { lock.unlock() }
        let existing = try itemsWithSecrets()
        let labels = try Self.plan(passwords, taken: existing.map(\.label), stored: existing.map(\.secret), check: check)
        var order = (try items().map(\.order).max() ?? 0)
        var stored: [String] = []
        for (password, label) in zip(passwords, labels) {
            order += 1
            do throws(StoreError) {
                try client.store(label: label, order: order, secret: password.secret)
                stored.append(label)
            } catch {
                // All or nothing: take back what this call stored.
                for label in stored { _ = try? client.clear(label: label) }
                throw error
            }
        }
        lock.unlock()
        for label in labels { observers.notify(self, .added(label: label)) }
        return labels
    }

    /// Stores the item again under `newLabel` with the same order, then removes the old one.
    public func rename(_ label: String, to newLabel: String) throws(StoreError) {
        let lock = try FileLock(path: lockPath, waiting: lockWaiting)
        defer { lock.unlock() }
        let entries = try client.itemsWithSecrets()
        if entries.isEmpty, try isLockedNow() { throw .locked(advice: SecretServiceClient.lockedAdvice) }
        try Self.checkRename(label, to: newLabel, in: entries.map(\.item.label))
        guard label != newLabel else { return }
        guard let entry = entries.first(where: { $0.item.label == label }) else { throw .unknownLabels([label]) }
        guard let secret = entry.secret else { throw emptyAnswer() }
        try client.store(label: newLabel, order: entry.item.order, secret: secret)
        do throws(StoreError) {
            if try !client.clear(label: label) { throw emptyAnswer() }
        } catch {
            _ = try? client.clear(label: newLabel)
            throw error
        }
        lock.unlock()
        observers.notify(self, .renamed(from: label, to: newLabel))
    }

    /// Removes the passwords with `labels`, all or nothing (unknown labels: `unknownLabels`).
    public func remove(labels: [String]) throws(StoreError) {
        let lock = try FileLock(path: lockPath, waiting: lockWaiting)
        defer { lock.unlock() }
        try Self.requireKnown(labels, in: try items().map(\.label))
        var cleared: Set<String> = []
        for label in labels where cleared.insert(label).inserted {
            // Nothing removed and no error: the collection was locked meanwhile.
            if try !client.clear(label: label) { throw emptyAnswer() }
        }
        lock.unlock()
        observers.notify(self, .removed(labels: labels))
    }

    /// Starts telling `observer` about changes made through this store.
    public func addObserver(_ observer: any PasswordStoreObserver) { observers.add(observer) }
    /// Stops telling `observer` about changes.
    public func removeObserver(_ observer: any PasswordStoreObserver) { observers.remove(observer) }

    /// Our items in the order they were added.
    private func items() throws(StoreError) -> [KeyringItem] {
        let items = try client.items()
        if items.isEmpty, try isLockedNow() { throw .locked(advice: SecretServiceClient.lockedAdvice) }
        return items.sorted { ($0.order, $0.label) < ($1.order, $1.label) }
    }

    /// A lookup that came back empty: locked (libsecret says nothing then) or gone.
    private func emptyAnswer() -> StoreError {
        if (try? isLockedNow()) == true { return .locked(advice: SecretServiceClient.lockedAdvice) }
        return .unavailable(reason: "a password vanished from the keyring while it was being read", advice: "try again")
    }

    /// libsecret answers a locked collection with "nothing found" and no error, so ask.
    private func isLockedNow() throws(StoreError) -> Bool {
        try client.defaultCollection()?.locked ?? false
    }
}

/// Identities: items of the schema `org.rwsecret.Identity` (attributes `label`, `kind`,
/// `order`; item label `rwsecret identity: LABEL`), never returned by a search of passwords.
extension KeyringPasswordStore: IdentityStore {
    /// Every identity in the order added.
    public func identities() throws(StoreError) -> [StoredIdentity] {
        let entries = try client.itemsWithSecrets(.identity)
        if entries.isEmpty, try isLockedNow() { throw .locked(advice: SecretServiceClient.lockedAdvice) }
        var result: [StoredIdentity] = []
        for entry in entries.sorted(by: { ($0.item.order, $0.item.label) < ($1.item.order, $1.item.label) }) {
            guard let secret = entry.secret else { throw emptyAnswer() }
            // A kind this version does not know is left where it is, unused.
            guard let kind = entry.item.kind.flatMap(IdentityKind.init(rawValue:)) else { continue }
            result.append(StoredIdentity(label: entry.item.label, kind: kind, secret: secret))
        }
        return result
    }

    /// Adds `identities` all or nothing, under the store's lock.
    @discardableResult
    public func addIdentities(_ identities: [IdentityToAdd]) throws(StoreError) -> [String] {
        let lock = try FileLock(path: lockPath, waiting: lockWaiting)
        defer { lock.unlock() }
        let existing = try self.identities()
        let labels = try Self.planIdentities(identities, stored: existing)
        var order = (try client.items(.identity).map(\.order).max() ?? 0)
        var stored: [String] = []
        for (identity, label) in zip(identities, labels) {
            order += 1
            do throws(StoreError) {
                try client.store(.identity, label: label, order: order, kind: identity.kind.rawValue, secret: identity.secret)
                stored.append(label)
            } catch {
                for label in stored { _ = try? client.clear(.identity, label: label) }
                throw error
            }
        }
        return labels
    }

    /// Removes the identities with `labels`, all or nothing.
    public func removeIdentities(labels: [String]) throws(StoreError) {
        let lock = try FileLock(path: lockPath, waiting: lockWaiting)
        defer { lock.unlock() }
        let items = try client.items(.identity)
        if items.isEmpty, try isLockedNow() { throw .locked(advice: SecretServiceClient.lockedAdvice) }
        try Self.requireKnown(labels, in: items.map(\.label))
        var cleared: Set<String> = []
        for label in labels where cleared.insert(label).inserted {
            if try !client.clear(.identity, label: label) { throw emptyAnswer() }
        }
    }

    /// Stores the identity again under `newLabel` with the same order and kind, then removes the old one.
    public func renameIdentity(_ label: String, to newLabel: String) throws(StoreError) {
        let lock = try FileLock(path: lockPath, waiting: lockWaiting)
        defer { lock.unlock() }
        let entries = try client.itemsWithSecrets(.identity)
        if entries.isEmpty, try isLockedNow() { throw .locked(advice: SecretServiceClient.lockedAdvice) }
        try Self.checkRename(label, to: newLabel, in: entries.map(\.item.label))
        guard label != newLabel else { return }
        guard let entry = entries.first(where: { $0.item.label == label }) else { throw .unknownLabels([label]) }
        guard let secret = entry.secret else { throw emptyAnswer() }
        try client.store(.identity, label: newLabel, order: entry.item.order, kind: entry.item.kind, secret: secret)
        do throws(StoreError) {
            if try !client.clear(.identity, label: label) { throw emptyAnswer() }
        } catch {
            _ = try? client.clear(.identity, label: newLabel)
            throw error
        }
    }
}
