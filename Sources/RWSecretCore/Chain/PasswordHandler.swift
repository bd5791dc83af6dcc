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
package final class PasswordHandler: DecryptionHandler {
    /// The password this handler tries.
    package let password: ChainPassword
    /// The next handler, or nil at the end of the chain.
    package let next: (any DecryptionHandler)?
    /// The PBKDF2 iteration count this handler derives with (10,000 unless the chain was told otherwise).
    package let iterations: Int

    /// A handler for `password`, followed by `next`, deriving keys with `iterations` PBKDF2 rounds.
    package init(password: ChainPassword, next: (any DecryptionHandler)?, iterations: Int = KeyDerivation.iterations) {
        precondition((1...KeyDerivation.maximumIterations).contains(iterations), "PBKDF2 iteration count out of range")
        self.password = password
        self.next = next
        self.iterations = iterations
    }

    /// Tries this password and the password handlers after it on a password-based
    /// message; passes a key-based one on.
    ///
    /// `walk.gate` coordinates the messages decrypted at the same time (`SearchGate`):
    /// the order in which this walk tries the passwords is the gate's (the winner of
    /// the nearest message walked, the chain's head when it opened the latest message written, then the
    /// passwords the fewest other walks have claimed, in chain order), and a walk
    /// never waits for another. Whatever the order, the outcome is the chain's: the
    /// message is opened by the first password in chain order (the gate's latest winner
    /// moved first) whose key form matches, and one that nothing opens has tried every
    /// password. With one walk at a time (`--jobs 1`, or no gate) the order is the
    /// chain order with the latest winner first, and no key is derived past the one
    /// that matches (on several threads, a long rest of the chain a few keys at a time).
    package func handle(_ message: Message, walk: ChainWalk) -> Result<Decrypted, DecryptionFailure> {
        guard message.header.isPasswordBased else { return passOn(message, walk: walk) }
        var chain: [PasswordHandler] = [self]
        while let following = chain.last?.next as? PasswordHandler { chain.append(following) }
        let last = chain[chain.count - 1]
        let gate = walk.gate ?? SearchGate()
        // The password that opened the latest message goes first, also when that message
        // finished after this one was handed its chain (its order decides a tie below).
        if let latest = gate.latestOpener, let index = chain.firstIndex(where: { $0.password.name == latest }), index > 0 {
            chain.insert(chain.remove(at: index), at: 0)
        }
        let names = chain.map(\.password.name)
        // The chain's head is a winner when it opened the latest message written (the client
        // marks its form; it is second when the gate's latest went first); else the head is
        // only first in chain order, and divided like the rest.
        let preferred = chain.prefix(2).firstIndex { $0.password.openedForm != nil }
        var untried = [Bool](repeating: true, count: chain.count)
        var remaining = chain.count
        let number = gate.begin(at: walk.position)
        while remaining > 0 {
            // The first key alone (it is usually the winner), then a batch only while at least four
            // per thread remain (and the walk is alone: `SearchGate.claim`).
            let count = walk.parallelism > 1 && remaining < chain.count && remaining >= 4 * walk.parallelism ? walk.parallelism : 1
            // In chain order, so that the first match of a batch is the first in order.
            let picked = gate.claim(count, of: names, untried: untried, preferred: preferred, walk: number).sorted()
            for index in picked { untried[index] = false }
            remaining -= picked.count
            let found = picked.count == 1
                ? chain[picked[0]].tryAlone(message).map { (position: picked[0], form: $0.form, index: $0.index) }
                : Self.tryTogether(picked.map { chain[$0] }, message: message, threads: walk.parallelism).map {
                    (position: picked[$0.handler], form: $0.form, index: $0.index)
                }
            guard let found else {
                gate.tried(picked.map { names[$0] }, walk: number)
                continue
            }
            // A password earlier in this walk's order with the same key form would have matched
            // too (only one not tried yet can): the first in order opens the message, as at --jobs 1.
            let (opener, form, index) = Self.firstInOrder(chain, untried: untried, before: found.position, form: found.form, header: message.header)
                ?? (chain[found.position], found.form, found.index)
            // The rest of the batch counts as tried in vain (the first match in it is the winner).
            gate.tried(picked.map { names[$0] }, matched: names[found.position], opener: opener.password.name, walk: number)
            gate.end(walk: number)
            return opener.open(message, form: form, index: index)
        }
        gate.end(walk: number)
        var rest = walk
        rest.tried = walk.tried + chain.count
        return last.passOn(message, walk: rest)
    }

    /// Every form of this password that might have made a message with `header`
    /// (reference form first); nothing for a key-based message.
    package func candidates(for header: MessageHeader) -> [ChainCandidate] {
        guard header.isPasswordBased else { return [] }
        return header.kdfPasswords(password.secret).map {
            ChainCandidate(opener: .password(password), keying: .password(kdfPassword: $0, iterations: iterations))
        }
    }

    /// Tries this password alone, each form one key at a time: the form that opened the
    /// previous message first (it usually opens this one), then the others. Returns the
    /// form whose HMAC matched, and its index.
    private func tryAlone(_ message: Message) -> (form: SecretBytes, index: Int)? {
        let forms = message.header.kdfPasswords(password.secret)
        var first = 0
        if let opened = password.openedForm, opened.version == message.header.version, opened.index < forms.count { first = opened.index }
        for index in [first] + forms.indices.filter({ $0 != first })
        where message.isAuthentic(hmacKey: message.hmacKey(forKDFPassword: forms[index], iterations: iterations)) {
            return (forms[index], index)
        }
        return nil
    }

    /// Derives the keys of every form of `handlers` at once, on up to `threads` threads;
    /// returns the first (in the order given) whose HMAC matched: its position in
    /// `handlers`, the form and its index.
    private static func tryTogether(_ handlers: [PasswordHandler], message: Message, threads: Int) -> (handler: Int, form: SecretBytes, index: Int)? {
        let forms = handlers.map { message.header.kdfPasswords($0.password.secret) }
        let keys = hmacKeys(for: message, forms: forms.flatMap { $0 }, threads: threads, iterations: handlers[0].iterations)
        var next = 0
        for (position, handlerForms) in forms.enumerated() {
            for (index, form) in handlerForms.enumerated() {
                defer { next += 1 }
                if message.isAuthentic(hmacKey: keys[next]) { return (position, form, index) }
            }
        }
        return nil
    }

    /// The first handler of `order` before `position`, not tried yet, that has `form` among
    /// its key forms (two chain names for one secret, or a password and another's other
    /// normalization form): it is the one chain order says opens the message.
    private static func firstInOrder(_ order: [PasswordHandler], untried: [Bool], before position: Int, form: SecretBytes,
                                     header: MessageHeader) -> (PasswordHandler, SecretBytes, Int)? {
        for candidate in 0..<position where untried[candidate] {
            let forms = header.kdfPasswords(order[candidate].password.secret)
            if let index = forms.firstIndex(where: { $0.isEqual(to: form) }) { return (order[candidate], forms[index], index) }
        }
        return nil
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

    /// The HMAC keys of `forms` for `message`, on up to `threads` threads (this one and the
    /// scheduler's threads free to help).
    private static func hmacKeys(for message: Message, forms: [SecretBytes], threads: Int, iterations: Int) -> [SecretBytes] {
        guard let salts = message.header.salts else { preconditionFailure("the chain handles password-based messages only") }
        let requests = forms.map { (password: $0, salt: salts.hmac) }
        let keys: [SecretBytes]
        let size = max(1, (requests.count + threads - 1) / max(1, threads))
        let groups = stride(from: 0, to: requests.count, by: size).map { Array(requests[$0..<min($0 + size, requests.count)]) }
        if threads > 1, groups.count > 1 {
            let results = ResultSlots<[SecretBytes]>(count: groups.count)
            Scheduler.shared.forEach(groups.count, width: threads) { index in
                results[index] = KeyDerivation.keys(groups[index], iterations: iterations)
            }
            keys = results.values.flatMap { $0 }
        } else {
            keys = KeyDerivation.keys(requests, iterations: iterations)
        }
        return keys
    }
}
