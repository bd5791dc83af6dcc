extension MessageKinds {
    /// The memory one password try on the message `input` holds takes, when its key derivation
    /// is costly (age's scrypt, OpenPGP's Argon2 or a high iterated count: tried several at
    /// once within a `TryBudget`); nil for a cheap one, one that takes no password, or one whose
    /// header does not parse (its opening says why).
    package static func memoryPerTry<K: MessageKind>(_ kind: K.Type, input: KindInput) -> Int? {
        guard let header = try? K.parseHeader(input) else { return nil }
        return K.costlyTry(header)?.memory
    }
}

extension MessageKinds.Decrypted {
    /// This outcome after `more` tries before it (a caller that walks the passwords itself).
    package func adding(tried more: Int) -> MessageKinds.Decrypted {
        MessageKinds.Decrypted(kind: kind, openedBy: openedBy, tried: tried + more, cost: cost, literal: literal)
    }

    /// This outcome, opened by `opener` (the first password in the caller's order with the same secret).
    package func opened(by opener: Opener) -> MessageKinds.Decrypted {
        MessageKinds.Decrypted(kind: kind, openedBy: opener, tried: tried, cost: cost, literal: literal)
    }
}

extension KindFailure {
    /// This failure after `more` tries before it.
    package func adding(tried more: Int) -> KindFailure {
        KindFailure(kind: kind, error: error, tried: tried + more, passwordsTried: passwordsTried.map { $0 + more })
    }

    /// A failure as `MessageKinds.open` gives it.
    package static func of(_ kind: MessageKindName, _ error: KindError, tried: Int) -> KindFailure {
        KindFailure(kind: kind, error: error, tried: tried)
    }
}
