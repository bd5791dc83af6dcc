import Dispatch

/// One link of the Chain of Responsibility: tries its own password, else passes the message on.
///
/// A handler derives only the HMAC key of its password and checks it in constant
/// time; the encryption key is derived only when the HMAC matches, so a wrong
/// password costs one key derivation. For speed a handler derives its own HMAC
/// key together with those of a few successors in one batch (independent
/// PBKDF2 chains run interleaved), but the outcome is decided strictly in
/// chain order: the first handler whose HMAC matches opens the message.
public final class DecryptionHandler: @unchecked Sendable {
    // Immutable once the chain is built (`next` is set only by `PasswordChain`).
    /// The password this handler tries.
    public let password: ChainPassword
    /// The next handler, or nil at the end of the chain.
    public internal(set) var next: DecryptionHandler?

    /// How many handlers' keys are derived together after the head has failed.
    ///
    /// The head is tried alone: it is the password that opened the previous
    /// message, so it usually succeeds and successors' keys would be wasted.
    static let batchSize = 3

    init(password: ChainPassword, next: DecryptionHandler?) {
        self.password = password
        self.next = next
    }

    /// Tries this handler's password, then its successors', on `message`.
    ///
    /// `tried` counts the handlers before this one. The end of the chain
    /// reports `noPasswordOpened(tried:)`.
    /// With `parallelism` > 1, the successors' keys are derived on that many
    /// threads at once (for a message that has the machine to itself).
    public func handle(_ message: Message, tried: Int = 0, parallelism: Int = 1) -> Result<Decrypted, DecryptionFailure> {
        var prefetched: [SecretBytes] = []
        return handle(message, tried: tried, parallelism: max(1, parallelism), prefetched: &prefetched)
    }

    private func handle(_ message: Message, tried: Int, parallelism: Int, prefetched: inout [SecretBytes]) -> Result<Decrypted, DecryptionFailure> {
        if prefetched.isEmpty {
            prefetched = deriveHMACKeys(for: message, count: tried == 0 ? 1 : Self.batchSize * parallelism, threads: parallelism)
        }
        let hmacKey = prefetched.removeFirst()
        if message.isAuthentic(hmacKey: hmacKey) {
            do {
                let plaintext = try message.decipher(encryptionKey: message.encryptionKey(for: password.secret))
                return .success(Decrypted(plaintext: plaintext, password: password))
            } catch {
                return .failure(.badPadding)
            }
        }
        guard let next else { return .failure(.noPasswordOpened(tried: tried + 1)) }
        return next.handle(message, tried: tried + 1, parallelism: parallelism, prefetched: &prefetched)
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

    /// The HMAC keys of this handler and up to `count - 1` successors, in chain order,
    /// derived in up to `threads` groups at once.
    private func deriveHMACKeys(for message: Message, count: Int, threads: Int) -> [SecretBytes] {
        guard let salts = message.header.salts else { preconditionFailure("the chain handles password-based messages only") }
        var requests: [(password: SecretBytes, salt: [UInt8])] = []
        var handler: DecryptionHandler? = self
        while let current = handler, requests.count < count {
            requests.append((message.header.kdfPassword(current.password.secret), salts.hmac))
            handler = current.next
        }
        let groups = stride(from: 0, to: requests.count, by: Self.batchSize).map { Array(requests[$0..<min($0 + Self.batchSize, requests.count)]) }
        guard threads > 1, groups.count > 1 else { return KeyDerivation.keys(requests) }
        let results = ResultSlots<[SecretBytes]>(count: groups.count)
        DispatchQueue.concurrentPerform(iterations: groups.count) { index in
            results[index] = KeyDerivation.keys(groups[index])
        }
        return results.values.flatMap { $0 }
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
