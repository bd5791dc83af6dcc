import Dispatch

/// One link of the Chain of Responsibility: tries its own password, else passes the message on.
///
/// A handler derives only the HMAC key of its password and checks it in constant
/// time; the encryption key is derived only when the HMAC matches, so a wrong
/// password costs one key derivation, and no key is derived that the chain
/// order does not need (on several threads, a long rest of the chain is derived
/// a few at a time). The outcome is decided strictly in chain order: the first
/// handler whose HMAC matches opens the message.
///
/// A non-ASCII password is tried in every form an RNCryptor implementation is
/// known to have fed to PBKDF2 for the message's version, and in its other
/// Unicode normalization form (`MessageHeader.kdfPasswords(_:)`): one more key
/// derivation per form, but the same password for `tried`. An ASCII password
/// has one form and costs one derivation, as before.
public final class DecryptionHandler: @unchecked Sendable {
    // Immutable once the chain is built (`next` is set only by `PasswordChain`).
    /// The password this handler tries.
    public let password: ChainPassword
    /// The next handler, or nil at the end of the chain.
    public internal(set) var next: DecryptionHandler?
    /// The PBKDF2 iteration count this handler derives with (10,000 unless the chain was told otherwise).
    public let iterations: Int

    init(password: ChainPassword, next: DecryptionHandler?, iterations: Int = KeyDerivation.iterations) {
        self.password = password
        self.next = next
        self.iterations = iterations
    }

    /// Tries this handler's password, then its successors', on `message`, in chain order.
    ///
    /// The end of the chain reports `noPasswordOpened(tried:)`. Every key derived is
    /// one the chain order needs, except that with `parallelism` > 1 a long rest of the
    /// chain (at least four candidates per thread) is derived that many at a time,
    /// which can cost at most `parallelism - 1` keys past the one that matches.
    ///
    /// `gate` coordinates messages decrypted at the same time (`SearchGate`): the
    /// head is tried at once, but the rest of the chain is walked by one message at a
    /// time, which first tries the password that opened a message meanwhile.
    public func handle(_ message: Message, parallelism: Int = 1, gate: SearchGate? = nil) -> Result<Decrypted, DecryptionFailure> {
        var chain: [DecryptionHandler] = []
        var handler: DecryptionHandler? = self
        while let current = handler { chain.append(current); handler = current.next }
        // The password that opened the latest finished message goes first, also when that
        // message finished after this one was handed its chain.
        if let latest = gate?.latestOpener, let index = chain.firstIndex(where: { $0.password.name == latest }), index > 0 {
            chain.insert(chain.remove(at: index), at: 0)
        }
        let head = chain.removeFirst()
        if let opened = head.tryAlone(message) {
            gate?.opened(head.password.name)
            return opened
        }
        let found: Match
        if let gate {
            found = gate.exclusively { latest in
                // A message that finished while this one waited: its password goes first.
                if let latest, let index = chain.firstIndex(where: { $0.password.name == latest }), index > 0 {
                    chain.insert(chain.remove(at: index), at: 0)
                }
                let found = walk(chain, message: message, tried: 1, parallelism: max(1, parallelism))
                if case .found(let handler, _, _) = found { gate.opened(handler.password.name) }
                return found
            }
        } else {
            found = walk(chain, message: message, tried: 1, parallelism: max(1, parallelism))
        }
        // The encryption key and the decipher are outside the gate: only the walk is shared.
        switch found {
        case .found(let handler, let form, let index): return handler.open(message, form: form, index: index)
        case .none(let tried): return .failure(.noPasswordOpened(tried: tried))
        }
    }

    /// What a walk of the chain found: the handler and form whose HMAC matched, or how many passwords it tried.
    private enum Match {
        case found(DecryptionHandler, form: SecretBytes, index: Int)
        case none(tried: Int)
    }

    /// Tries this password alone, each form one key at a time: the form that opened the
    /// previous message first (it usually opens this one), then the others.
    private func tryAlone(_ message: Message) -> Result<Decrypted, DecryptionFailure>? {
        let forms = message.header.kdfPasswords(password.secret)
        var first = 0
        if let opened = password.openedForm, opened.version == message.header.version, opened.index < forms.count { first = opened.index }
        for index in [first] + forms.indices.filter({ $0 != first })
        where message.isAuthentic(hmacKey: message.hmacKey(forKDFPassword: forms[index], iterations: iterations)) {
            return open(message, form: forms[index], index: index)
        }
        return nil
    }

    /// Walks `handlers` in order: one key at a time, or `parallelism` handlers' keys at
    /// once while at least four per thread remain.
    private func walk(_ handlers: [DecryptionHandler], message: Message, tried: Int, parallelism: Int) -> Match {
        var tried = tried
        var position = 0
        while position < handlers.count {
            let remaining = handlers.count - position
            let count = parallelism > 1 && remaining >= 4 * parallelism ? parallelism : 1
            let batch = Array(handlers[position..<(position + count)])
            let forms = batch.map { message.header.kdfPasswords($0.password.secret) }
            let keys = hmacKeys(for: message, forms: forms.flatMap { $0 }, threads: count)
            var next = 0
            for (handler, handlerForms) in zip(batch, forms) {
                for (index, form) in handlerForms.enumerated() {
                    defer { next += 1 }
                    if message.isAuthentic(hmacKey: keys[next]) { return .found(handler, form: form, index: index) }
                }
                tried += 1
            }
            position += count
        }
        return .none(tried: tried)
    }

    /// Deciphers a message whose HMAC matched under `form` (number `index`) of this handler's password.
    private func open(_ message: Message, form: SecretBytes, index: Int) -> Result<Decrypted, DecryptionFailure> {
        do {
            let plaintext = try message.decipher(encryptionKey: message.encryptionKey(forKDFPassword: form, iterations: iterations))
            var opener = password
            opener.openedForm = (message.header.version, index)
            return .success(Decrypted(plaintext: plaintext, password: opener))
        } catch {
            return .failure(.badPadding)
        }
    }

    /// Asks this handler and every successor, in chain order, for its password.
    ///
    /// The chain's order as a list (for tests and the fuzz oracle; `--binary` uses
    /// `candidates(for:)`, which also gives each password's forms).
    public func collectPasswords(into passwords: inout [ChainPassword]) {
        passwords.append(password)
        next?.collectPasswords(into: &passwords)
    }

    /// Every password of this handler and its successors, each form of it that
    /// might have made a message with `header`, in chain order (reference form first).
    ///
    /// For one pass over a large message that computes every candidate's HMAC at
    /// once (`--binary`): derive each form's HMAC key with `iterations`; the first
    /// candidate in this order whose HMAC matches opens the message.
    public func candidates(for header: MessageHeader) -> [(password: ChainPassword, kdfPassword: SecretBytes)] {
        var result: [(password: ChainPassword, kdfPassword: SecretBytes)] = []
        var handler: DecryptionHandler? = self
        while let current = handler {
            for form in header.kdfPasswords(current.password.secret) { result.append((current.password, form)) }
            handler = current.next
        }
        return result
    }

    /// The HMAC keys of `forms` for `message`, on up to `threads` threads.
    private func hmacKeys(for message: Message, forms: [SecretBytes], threads: Int) -> [SecretBytes] {
        guard let salts = message.header.salts else { preconditionFailure("the chain handles password-based messages only") }
        let requests = forms.map { (password: $0, salt: salts.hmac) }
        let keys: [SecretBytes]
        let size = max(1, (requests.count + threads - 1) / max(1, threads))
        let groups = stride(from: 0, to: requests.count, by: size).map { Array(requests[$0..<min($0 + size, requests.count)]) }
        if threads > 1, groups.count > 1 {
            let results = ResultSlots<[SecretBytes]>(count: groups.count)
            DispatchQueue.concurrentPerform(iterations: groups.count) { index in
                results[index] = KeyDerivation.keys(groups[index], iterations: iterations)
            }
            keys = results.values.flatMap { $0 }
        } else {
            keys = KeyDerivation.keys(requests, iterations: iterations)
        }
        return keys
    }
}

/// A message opened by the chain: its plaintext and the password that opened it.
public struct Decrypted: Sendable {
    public let plaintext: [UInt8]
    public let password: ChainPassword

    public init(plaintext: [UInt8], password: ChainPassword) {
        self.plaintext = plaintext
        self.password = password
    }
}

/// Slots that concurrent iterations each write once (distinct indices, so no lock is needed).
private final class ResultSlots<Value>: @unchecked Sendable {
    // Raw memory, not an Array: each write to an Array is a formal access to the whole
    // array (uniqueness check, write-back), which races between threads (ThreadSanitizer).
    private let slots: UnsafeMutableBufferPointer<Value?>
    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }
    deinit {
        _ = slots.deinitialize()
        slots.deallocate()
    }
    subscript(index: Int) -> Value? {
        get { slots[index] }
        set { slots[index] = newValue }
    }
    var values: [Value] { slots.map { $0! } }
}
