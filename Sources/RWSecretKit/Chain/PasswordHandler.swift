import Dispatch

/// The handler of one password: tries it on password-based messages, else passes the message on.
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
/// has one form and costs one derivation.
///
/// Consecutive password handlers are walked together (so that their keys can be
/// derived in batches, and the password that opened the latest message can go
/// first); the walk passes the message on after the last of them.
public final class PasswordHandler: DecryptionHandler {
    /// The password this handler tries.
    public let password: ChainPassword
    /// The next handler, or nil at the end of the chain.
    public let next: (any DecryptionHandler)?
    /// The PBKDF2 iteration count this handler derives with (10,000 unless the chain was told otherwise).
    public let iterations: Int

    /// A handler for `password`, followed by `next`, deriving keys with `iterations` PBKDF2 rounds.
    public init(password: ChainPassword, next: (any DecryptionHandler)?, iterations: Int = KeyDerivation.iterations) {
        precondition((1...KeyDerivation.maximumIterations).contains(iterations), "PBKDF2 iteration count out of range")
        self.password = password
        self.next = next
        self.iterations = iterations
    }

    /// Tries this password and the password handlers after it, in chain order, on a
    /// password-based message; passes a key-based one on.
    ///
    /// `walk.gate` coordinates messages decrypted at the same time (`SearchGate`): the
    /// head is tried at once, but the rest of the chain is walked by one message at a
    /// time, which first tries the password that opened a message meanwhile.
    public func handle(_ message: Message, walk: ChainWalk) -> Result<Decrypted, DecryptionFailure> {
        guard message.header.isPasswordBased else { return passOn(message, walk: walk) }
        var chain: [PasswordHandler] = [self]
        while let following = chain.last?.next as? PasswordHandler { chain.append(following) }
        let last = chain[chain.count - 1]
        let gate = walk.gate
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
                let found = Self.walk(chain, message: message, tried: walk.tried + 1, parallelism: walk.parallelism)
                if case .found(let handler, _, _) = found { gate.opened(handler.password.name) }
                return found
            }
        } else {
            found = Self.walk(chain, message: message, tried: walk.tried + 1, parallelism: walk.parallelism)
        }
        // The encryption key and the decipher are outside the gate: only the walk is shared.
        switch found {
        case .found(let handler, let form, let index): return handler.open(message, form: form, index: index)
        case .none(let tried):
            var rest = walk
            rest.tried = tried
            return last.passOn(message, walk: rest)
        }
    }

    /// Every form of this password that might have made a message with `header`
    /// (reference form first); nothing for a key-based message.
    public func candidates(for header: MessageHeader) -> [ChainCandidate] {
        guard header.isPasswordBased else { return [] }
        return header.kdfPasswords(password.secret).map {
            ChainCandidate(opener: .password(password), keying: .password(kdfPassword: $0, iterations: iterations))
        }
    }

    /// What a walk of the chain found: the handler and form whose HMAC matched, or how many passwords it tried.
    private enum Match {
        case found(PasswordHandler, form: SecretBytes, index: Int)
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
    private static func walk(_ handlers: [PasswordHandler], message: Message, tried: Int, parallelism: Int) -> Match {
        var tried = tried
        var position = 0
        while position < handlers.count {
            let remaining = handlers.count - position
            let count = parallelism > 1 && remaining >= 4 * parallelism ? parallelism : 1
            let batch = Array(handlers[position..<(position + count)])
            let forms = batch.map { message.header.kdfPasswords($0.password.secret) }
            let keys = hmacKeys(for: message, forms: forms.flatMap { $0 }, threads: count, iterations: handlers[position].iterations)
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
            return .success(Decrypted(plaintext: plaintext, openedBy: .password(opener)))
        } catch {
            return .failure(.badPadding)
        }
    }

    /// The HMAC keys of `forms` for `message`, on up to `threads` threads.
    private static func hmacKeys(for message: Message, forms: [SecretBytes], threads: Int, iterations: Int) -> [SecretBytes] {
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
