/// The client of the chain: holds only its head, and keeps it in step with the store.
///
/// The chain is: the key when one was given, then stored passwords in stored order, then the run-only passwords
/// (a run-only password equal to an earlier one is dropped), except that the
/// password that opened the most recently finished message goes first. The
/// client observes the store (Observer) and reads it again after every change;
/// otherwise it reads the store once (a vault read costs a key derivation pair,
/// a keyring read a D-Bus round trip), and a new first password only reorders
/// the chain. The store itself is opened only when the first message needs it.
///
/// `Sendable`: one client may serve every task of a server. Its state (the store once
/// opened, the chain as last built, the password that opened the last message) is read
/// and changed under one lock, so messages decrypted from many tasks still put the last
/// winner first; the key derivations themselves run outside the lock.
public final class PasswordClient: Sendable, PasswordStoreObserver {
    /// Opens the store on first use; returns nil when there is no store (`--no-store`).
    /// Called at most once, from whichever task decrypts the first password-based message.
    package typealias StoreOpener = @Sendable () throws -> (any PasswordStore)?

    /// What the client reads and changes, under `state`'s lock.
    private struct State {
        var store: (any PasswordStore)?
        var storeOpened = false
        var head: (any DecryptionHandler)?
        /// The store's passwords as last read; nil until read and after the store changes.
        var stored: [ChainPassword]?
        var chainIsCurrent = false
        var preferredName: String?
        /// The form of the preferred password that opened the last message (a hint for the head).
        var preferredForm: (version: UInt8, index: Int)?
        var lastBuild: (stored: Int, runOnly: Int, droppedDuplicates: Int) = (0, 0, 0)
        /// Passwords added during the run (typed when nothing opened a message): they go first.
        var added: [ChainPassword] = []
        /// Only these stored passwords are tried (`decrypt --password-label`); nil: all of them.
        var labels: [String]?
    }

    private let openStore: StoreOpener
    private let runOnly: [ChainPassword]
    private let keys: MessageKeys?
    package let iterations: Int
    private let state = LockedState(State())
    /// Whether `decrypt` opens versions 0 and 1 (`LegacyFormats`; refused unless the client was told).
    package let legacyFormats: LegacyFormats

    /// Facts about the chain as last built, for `--verbose` (counts only, never secrets).
    package var lastBuild: (stored: Int, runOnly: Int, droppedDuplicates: Int) { state.withLock { $0.lastBuild } }

    /// A client over the store that `openStore` opens lazily, plus `runOnly` passwords
    /// and the `keys` of key-based messages.
    /// Whatever `openStore` throws, `decrypt` reports as `DecryptionFailure.store`.
    /// Every handler derives keys with the format's 10,000 PBKDF2 rounds.
    /// Versions 0 and 1 fail with `.format(.legacyVersion)` unless `legacyFormats` is `.allowed`.
    public convenience init(runOnly: [ChainPassword], keys: MessageKeys? = nil,
                            legacyFormats: LegacyFormats = .refused, openStore: @escaping @Sendable () throws -> (any PasswordStore)?) {
        try! self.init(runOnly: runOnly, keys: keys, iterations: KeyDerivation.iterations,  // 10,000 is in range
                       legacyFormats: legacyFormats, openStore: openStore)
    }

    /// A client as above whose handlers derive keys with `iterations` PBKDF2 rounds
    /// (messages made with another count than the format's 10,000).
    ///
    /// - Throws: `RNCryptorError.iterationsOutOfRange` unless `iterations` is in
    ///   1...100,000,000.
    public init(runOnly: [ChainPassword], keys: MessageKeys? = nil, iterations: Int,
                legacyFormats: LegacyFormats = .refused, openStore: @escaping @Sendable () throws -> (any PasswordStore)?) throws(RNCryptorError) {
        try RNCryptorError.check(iterations: iterations)
        self.legacyFormats = legacyFormats
        self.runOnly = runOnly
        self.keys = keys
        self.iterations = iterations
        self.openStore = openStore
    }

    /// The passwords given for the run alone: those typed during the run (`add`) first, then
    /// those given at the start, in the order given (the store is not opened).
    /// The last winner among them goes first, as in the chain.
    package var runOnlyPasswords: [ChainPassword] {
        state.withLock { state in
            var passwords = state.added.reversed() + runOnly
            if let name = state.preferredName, let index = passwords.firstIndex(where: { $0.name == name }), index > 0 {
                passwords.insert(passwords.remove(at: index), at: 0)
            }
            return passwords
        }
    }

    deinit { (state.withLock { $0.store } as? any ObservablePasswordStore)?.removeObserver(self) }

    /// Decrypts `message`, key-based or password-based, with the chain, and moves the
    /// password that opened it to the front of the chain.
    ///
    /// Blocks the calling thread for the key derivations (and the store's first read); in
    /// `async` code, `await client.decrypt(message)` runs them on a thread of its own.
    ///
    /// A v0 or v1 message fails with `.format(.legacyVersion)` (nothing derived, the store
    /// not opened) unless the client allows legacy formats.
    ///
    /// - Throws: ``DecryptionFailure``: its code says the message is malformed (`format`), no
    ///   password or key opened it, or the store could not be opened or read (`store`).
    public func decrypt(_ message: some RandomAccessCollection<UInt8>) throws(DecryptionFailure) -> Decrypted {
        let parsed: Message
        do throws(RNCryptorError) { parsed = try Message(Array(message)) } catch { throw .format(error) }
        let result: Result<Decrypted, DecryptionFailure>
        do { result = try decrypt(parsed) } catch let error as StoreError { throw .store(error) } catch {
            throw .store(.unavailable(reason: String(describing: error), advice: ""))
        }
        return try result.get()
    }

    /// Whether the chain holds anything to try: a password (given for the run, or stored: the
    /// store is opened now if it was not) or a key. A program that serves a stream of
    /// messages checks it first, to fail once rather than on every message. Throws what the
    /// store's opener threw.
    public func hasSomethingToTry() throws -> Bool {
        try chainHead() != nil
    }

    /// The head of the chain as it is now (nil when there is no password at all).
    ///
    /// Handlers are immutable once built, so the returned chain may be used from
    /// other threads while the client builds a new one.
    package func chainHead() throws -> (any DecryptionHandler)? {
        try state.withLock { state in
            if !state.storeOpened {
                state.store = try openStore()
                state.storeOpened = true
                (state.store as? any ObservablePasswordStore)?.addObserver(self)
            }
            if !state.chainIsCurrent { try rebuild(&state) }
            return state.head
        }
    }

    /// The chain that may open a message with `header`: for a key-based message only
    /// the key's handler (the store is not opened for it), else the whole chain (the
    /// store is opened by the first password-based message). Nil when there is nothing
    /// to try; the end of the chain, or its absence, is what `handle` reports.
    package func chainHead(for header: MessageHeader) throws -> (any DecryptionHandler)? {
        guard header.isPasswordBased else { return keys.map { KeyHandler(keys: $0, next: nil) } }
        return try chainHead()
    }

    /// Runs `message` through the chain, key-based or password-based, and moves the
    /// password that opened it to the front. A v0 or v1 message fails with
    /// `.format(.legacyVersion)` (nothing derived, the store not opened) unless the
    /// client allows legacy formats. Throws what the store's opener or the store threw.
    package func decrypt(_ message: Message, parallelism: Int = 1, gate: SearchGate? = nil) throws -> Result<Decrypted, DecryptionFailure> {
        if let refusal = refusal(of: message.header) { return .failure(refusal) }
        guard let head = try chainHead(for: message.header) else {
            return .failure(.endOfChain(for: message.header))
        }
        let result = head.handle(message, parallelism: parallelism, gate: gate)
        if case .success(let decrypted) = result { messageFinished(openedBy: decrypted.openedBy) }
        return result
    }

    /// The failure a message with `header` gets before the chain is tried: a legacy
    /// version the client does not allow; nil when the chain may try it.
    package func refusal(of header: MessageHeader) -> DecryptionFailure? {
        do throws(RNCryptorError) { try legacyFormats.check(header) } catch { return .format(error) }
        return nil
    }

    /// Records that a message finished, opened by `opener`: a password goes first from now on.
    package func messageFinished(openedBy opener: Opener) {
        guard case .password(let password) = opener else { return }
        state.withLock { state in
            guard state.preferredName != password.name || state.preferredForm?.version != password.openedForm?.version
                    || state.preferredForm?.index != password.openedForm?.index else { return }
            state.preferredName = password.name
            state.preferredForm = password.openedForm
            state.chainIsCurrent = false
        }
    }

    /// Tries only the stored passwords labelled `labels` (the run-only ones still follow), as
    /// `rwsecret decrypt --password-label` does; a label the store does not hold makes the next
    /// `decrypt` fail with a store failure, a ``StoreError`` (`unknownLabel`) that names it.
    public func onlyStored(labels: [String]) {
        state.withLock { state in
            state.labels = labels
            state.chainIsCurrent = false
        }
    }

    /// Adds `password` (asked for during the run) to the chain, first from now on until
    /// another password opens a message. Kept for the run only, never stored.
    package func add(_ password: ChainPassword) {
        state.withLock { state in
            state.added.append(password)
            state.preferredName = password.name
            state.preferredForm = nil
            state.chainIsCurrent = false
        }
    }

    /// Forgets the store's passwords as read: the chain is rebuilt from the store before its next use.
    public func passwordStore(_ store: any PasswordStore, didChange change: PasswordStoreChange) {
        state.withLock { state in
            state.stored = nil
            state.chainIsCurrent = false
        }
    }

    private func rebuild(_ state: inout State) throws(StoreError) {
        if state.stored == nil {
            state.stored = try state.store?.passwords().map { ChainPassword(name: $0.label, secret: $0.secret) } ?? []
        }
        var stored = state.stored ?? []
        if let labels = state.labels {
            let missing = labels.filter { label in !stored.contains { $0.name == label } }
            guard missing.isEmpty else { throw .unknownLabels(missing) }
            stored.removeAll { !labels.contains($0.name) }
        }
        var passwords = stored
        var dropped = 0
        for candidate in runOnly + state.added {
            if passwords.contains(where: { $0.secret.isEqual(to: candidate.secret) }) {
                dropped += 1
            } else {
                passwords.append(candidate)
            }
        }
        if let preferredName = state.preferredName, let index = passwords.firstIndex(where: { $0.name == preferredName }) {
            var first = passwords.remove(at: index)
            first.openedForm = state.preferredForm
            passwords.insert(first, at: 0)
        }
        let iterations = self.iterations
        let passwordChain = passwords.reversed().reduce(nil) { next, password -> (any DecryptionHandler)? in
            PasswordHandler(password: password, next: next, iterations: iterations)
        }
        state.head = keys.map { KeyHandler(keys: $0, next: passwordChain) } ?? passwordChain
        state.lastBuild = (stored.count, passwords.count - stored.count, dropped)
        state.chainIsCurrent = true
    }
}
