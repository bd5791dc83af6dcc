import Dispatch

/// One link of the Chain of Responsibility: tries its own password, else passes the message on.
///
/// A handler derives only the HMAC key of its password and checks it in constant
/// time; the encryption key is derived only when the HMAC matches, so a wrong
/// password costs one key derivation. For speed a handler derives its own HMAC
/// key together with those of a few successors in one batch (independent
/// PBKDF2 chains run interleaved), but the outcome is decided strictly in
/// chain order: the first handler whose HMAC matches opens the message.
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

    /// How many handlers' keys are derived together after the head has failed.
    ///
    /// The head is tried alone: it is the password that opened the previous
    /// message, so it usually succeeds and successors' keys would be wasted.
    static let batchSize = 3

    init(password: ChainPassword, next: DecryptionHandler?, iterations: Int = KeyDerivation.iterations) {
        self.password = password
        self.next = next
        self.iterations = iterations
    }

    /// The forms of a handler's password (by index in `kdfPasswords`) and the HMAC key each gives for a message.
    private typealias Prefetched = [(index: Int, form: SecretBytes, hmacKey: SecretBytes)]

    /// Tries this handler's password, then its successors', on `message`.
    ///
    /// `tried` counts the handlers before this one. The end of the chain
    /// reports `noPasswordOpened(tried:)`.
    /// With `parallelism` > 1, the successors' keys are derived on that many
    /// threads at once (for a message that has the machine to itself).
    public func handle(_ message: Message, tried: Int = 0, parallelism: Int = 1) -> Result<Decrypted, DecryptionFailure> {
        var prefetched: [Prefetched] = []
        return handle(message, tried: tried, parallelism: max(1, parallelism), prefetched: &prefetched)
    }

    private func handle(_ message: Message, tried: Int, parallelism: Int, prefetched: inout [Prefetched]) -> Result<Decrypted, DecryptionFailure> {
        let mine: Prefetched
        if !prefetched.isEmpty {
            mine = prefetched.removeFirst()
        } else if tried == 0 {
            // The head opened the previous message, so it usually opens this one, in the form
            // it had then: derive that form alone first, the others only if it fails.
            let forms = message.header.kdfPasswords(password.secret)
            var first = 0
            if let opened = password.openedForm, opened.version == message.header.version, opened.index < forms.count { first = opened.index }
            if message.isAuthentic(hmacKey: message.hmacKey(forKDFPassword: forms[first], iterations: iterations)) {
                return open(message, form: forms[first], index: first)
            }
            let others = forms.indices.filter { $0 != first }
            let keys = hmacKeys(for: message, forms: others.map { forms[$0] }, threads: 1)
            mine = others.enumerated().map { (index: $0.element, form: forms[$0.element], hmacKey: keys[$0.offset]) }
        } else {
            prefetched = deriveHMACKeys(for: message, count: Self.batchSize * parallelism, threads: parallelism)
            mine = prefetched.removeFirst()
        }
        for (index, form, hmacKey) in mine where message.isAuthentic(hmacKey: hmacKey) {
            return open(message, form: form, index: index)
        }
        guard let next else { return .failure(.noPasswordOpened(tried: tried + 1)) }
        return next.handle(message, tried: tried + 1, parallelism: parallelism, prefetched: &prefetched)
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
    /// Used where one pass over a large message must compute every candidate's
    /// HMAC at once (`--binary`): the request travels down the chain, and the
    /// first candidate in chain order whose HMAC matches still wins.
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

    /// The HMAC keys of every form of the passwords of this handler and up to
    /// `count - 1` successors, grouped by handler in chain order, derived in up to
    /// `threads` groups at once.
    private func deriveHMACKeys(for message: Message, count: Int, threads: Int) -> [Prefetched] {
        var forms: [[SecretBytes]] = []
        var handler: DecryptionHandler? = self
        while let current = handler, forms.count < count {
            forms.append(message.header.kdfPasswords(current.password.secret))
            handler = current.next
        }
        let keys = hmacKeys(for: message, forms: forms.flatMap { $0 }, threads: threads)
        var next = 0
        return forms.map { handlerForms in
            handlerForms.enumerated().map { index, form in
                defer { next += 1 }
                return (index, form, keys[next])
            }
        }
    }

    /// The HMAC keys of `forms` for `message`, derived in groups of `batchSize` on up to `threads` threads.
    private func hmacKeys(for message: Message, forms: [SecretBytes], threads: Int) -> [SecretBytes] {
        guard let salts = message.header.salts else { preconditionFailure("the chain handles password-based messages only") }
        let requests = forms.map { (password: $0, salt: salts.hmac) }
        let keys: [SecretBytes]
        let groups = stride(from: 0, to: requests.count, by: Self.batchSize).map { Array(requests[$0..<min($0 + Self.batchSize, requests.count)]) }
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
    private var slots: [Value?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    subscript(index: Int) -> Value? {
        get { slots[index] }
        set { slots.withUnsafeMutableBufferPointer { $0[index] = newValue } }
    }
    var values: [Value] { slots.map { $0! } }
}
