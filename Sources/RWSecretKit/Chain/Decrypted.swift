/// A message opened by the chain: its plaintext, verified, what opened it, and its kind.
///
/// Only the chain makes one (its initializer is not public), so a `Decrypted` in hand
/// means a handler verified the message's HMAC before it deciphered it.
public struct Decrypted: Sendable {
    /// The plaintext. Its HMAC verified before it was deciphered.
    public let plaintext: [UInt8]
    /// The password, the key or the identity that opened the message.
    public let openedBy: Opener
    /// The kind of message it was (``PasswordClient`` opens RNCryptor messages;
    /// ``MessageOpener`` every kind).
    public let kind: MessageOpener.Kind
    /// An OpenPGP message's literal data packet: the file name, date and format its sender
    /// wrote, and its signatures as the message holds them, not checked here (each one's
    /// ``OpenPGPSignature/outcome`` is ``OpenPGPSignature/Outcome/unknownKey``, or says why it
    /// cannot be checked). Nil for the other kinds.
    public let literal: LiteralData?

    /// A result as the chain makes it.
    package init(plaintext: [UInt8], openedBy: Opener, kind: MessageOpener.Kind = .rncryptor, literal: LiteralData? = nil) {
        self.plaintext = plaintext
        self.openedBy = openedBy
        self.kind = kind
        self.literal = literal
    }
}

/// What opened a message: a password of the chain, the key, or an identity.
public enum Opener: Sendable {
    /// This password (its name; never its secret).
    case password(ChainPassword)
    /// The key of key-based RNCryptor messages.
    case key
    /// An identity (an age X25519 identity or an SSH key), by the name it was given.
    case identity(String)

    /// The password's chain name; nil for the key and an identity.
    public var passwordName: String? {
        if case .password(let password) = self { password.name } else { nil }
    }

    /// The identity's name; nil for a password and the key.
    public var identityName: String? {
        if case .identity(let name) = self { name } else { nil }
    }
}
