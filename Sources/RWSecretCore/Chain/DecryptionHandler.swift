/// One link of the Chain of Responsibility: opens a message if it can, else passes it on.
///
/// A chain is built by `PasswordClient` (one `PasswordHandler` per password, and a
/// `KeyHandler` when a key was given) and used through its head for every kind of
/// message: one-shot (`handle(_:parallelism:gate:)`) and streaming
/// (`VerifiedStream`, through `candidates(for:)`). The outcome is decided in chain
/// order: the first handler whose HMAC matches opens the message. The end of the
/// chain reports what nothing opened (`DecryptionFailure`).
///
/// Handlers are immutable once built, so a chain may be used from several threads.
package protocol DecryptionHandler: AnyObject, Sendable {
    /// The next handler, or nil at the end of the chain.
    var next: (any DecryptionHandler)? { get }

    /// Tries this handler on `message`; when it cannot open it, passes it on
    /// (`passOn(_:walk:)`), so that the result is the chain's from here on.
    func handle(_ message: Message, walk: ChainWalk) -> Result<Decrypted, DecryptionFailure>

    /// What this handler alone (not its successors) offers for a message with
    /// `header`, in the order it would try them: for a one-pass reader of a large
    /// message, which checks every candidate's HMAC at once.
    func candidates(for header: MessageHeader) -> [ChainCandidate]
}

/// How a message is walked down the chain: shared by every handler it passes.
package struct ChainWalk: Sendable {
    /// Threads a handler may use to derive the keys of several passwords at once.
    package var parallelism: Int
    /// Shared by the messages walked at the same time: they divide the chain and share each
    /// winner (see `SearchGate`); nil for a message walked on its own.
    package var gate: SearchGate?
    /// Passwords tried so far by earlier handlers of this walk.
    package var tried: Int
    /// The message's place in the input (the tool's pipeline numbers its items), which
    /// `SearchGate` uses to find the message's neighbours; nil: the order walks begin in.
    package var position: Int?

    /// A walk that starts at the head: nothing tried yet.
    package init(parallelism: Int = 1, gate: SearchGate? = nil) {
        self.parallelism = max(1, parallelism)
        self.gate = gate
        self.tried = 0
    }
}

/// Something a handler offers to open a message with: the key, or one form of a password.
///
/// Opaque outside the package: it holds key material, and only the library's
/// streaming reader (`VerifiedStream`) uses it.
package struct ChainCandidate: Sendable {
    /// What opens the message when this candidate's HMAC matches.
    package let opener: Opener
    package enum Keying: Sendable {
        /// Both keys are derived from this form of the password with PBKDF2.
        case password(kdfPassword: SecretBytes, iterations: Int)
        /// The keys themselves.
        case keys(MessageKeys)
    }
    package let keying: Keying

    package init(opener: Opener, keying: Keying) {
        self.opener = opener
        self.keying = keying
    }
}

extension DecryptionHandler {
    /// Runs `message` down the chain from this handler, in chain order.
    ///
    /// With `parallelism` > 1, a long rest of the chain is derived that many keys at
    /// a time (at most `parallelism - 1` keys past the one that matches); `gate` is
    /// shared by the messages decrypted at the same time (`SearchGate`).
    package func handle(_ message: Message, parallelism: Int = 1, gate: SearchGate? = nil) -> Result<Decrypted, DecryptionFailure> {
        handle(message, walk: ChainWalk(parallelism: parallelism, gate: gate))
    }

    /// Like `handle(_:parallelism:gate:)`, for the message at `position` in the input.
    package func handle(_ message: Message, parallelism: Int, gate: SearchGate, position: Int) -> Result<Decrypted, DecryptionFailure> {
        var walk = ChainWalk(parallelism: parallelism, gate: gate)
        walk.position = position
        return handle(message, walk: walk)
    }

    /// Hands `message` to the next handler, or reports the end of the chain: no
    /// password opened it (`tried` of them), or a key-based message met no key.
    package func passOn(_ message: Message, walk: ChainWalk) -> Result<Decrypted, DecryptionFailure> {
        if let next { return next.handle(message, walk: walk) }
        return .failure(.endOfChain(for: message.header, tried: walk.tried))
    }

    /// Every candidate of this handler and its successors for a message with `header`, in chain order.
    package func chainCandidates(for header: MessageHeader) -> [ChainCandidate] {
        var result: [ChainCandidate] = []
        var handler: (any DecryptionHandler)? = self
        while let current = handler {
            result += current.candidates(for: header)
            handler = current.next
        }
        return result
    }

    /// The chain's passwords from this handler on, in chain order (for tests and the fuzz oracle).
    package func chainPasswords() -> [ChainPassword] {
        var passwords: [ChainPassword] = []
        var handler: (any DecryptionHandler)? = self
        while let current = handler {
            if let password = (current as? PasswordHandler)?.password { passwords.append(password) }
            handler = current.next
        }
        return passwords
    }
}
