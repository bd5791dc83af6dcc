extension Decrypted {
    /// The kind of message it was (``/RWSecretCore/PasswordClient`` opens RNCryptor messages;
    /// ``MessageOpener`` every kind).
    public var kind: MessageOpener.Kind { MessageOpener.Kind(core: kindName) }

    /// An OpenPGP message's literal data packet: the file name, date and format its sender
    /// wrote, and its signatures as the message holds them, not checked here (each one's
    /// ``OpenPGPSignature/outcome`` is ``OpenPGPSignature/Outcome/unknownKey``, or says why it
    /// cannot be checked). Nil for the other kinds.
    public var literal: LiteralData? { kindFacts as? LiteralData }

    /// A result of the opener of every kind.
    package init(plaintext: [UInt8], openedBy: Opener, kind: MessageOpener.Kind, literal: LiteralData?) {
        self.init(plaintext: plaintext, openedBy: openedBy, kindName: KindName(kind.name), kindFacts: literal)
    }
}

extension DecryptionFailure {
    /// The kind of message a failure of another kind concerns (age, OpenPGP, Ansible Vault);
    /// nil for an RNCryptor message and for failures before the kind was known.
    public var kind: MessageOpener.Kind? {
        if case .kind(let name, _, _) = reason { MessageOpener.Kind(core: name) } else { nil }
    }
}

extension KindName {
    /// The core's name of one of the library's kinds.
    package init(_ name: MessageKindName) {
        self.init(rawValue: name.rawValue, words: MessageOpener.Kind(name).words)
    }
}

extension MessageOpener.Kind {
    /// The kind a core name names (every name the core carries is one of the library's kinds).
    package init(core name: KindName) {
        self.init(MessageKindName(rawValue: name.rawValue)!)
    }
}

extension KindError {
    /// The failure classes of the C2SP age test kit ("header failure", "no match"…).
    package var testKitClass: String {
        switch self {
        case .armor: "armor failure"
        case .header, .workFactorTooHigh, .refused: "header failure"
        case .noMatch: "no match"
        case .headerMAC: "HMAC failure"
        case .payload, .packetInside: "payload failure"
        case .tooLarge, .io, .outOfMemory: "other"
        }
    }
}

extension DecryptionFailure.Reason {
    /// A message of one of the library's kinds did not open (the core's case, by the kind's name).
    package static func kind(_ name: MessageKindName, _ error: KindError, tried: Int) -> Self {
        .kind(KindName(name), error, tried: tried)
    }
}
