/// A message opened by the chain: its plaintext, verified, and what opened it (and, through
/// RWSecretKit's opener of every kind, its kind).
///
/// Only the chain makes one (its initializer is not public), so a `Decrypted` in hand
/// means a handler verified the message's HMAC before it deciphered it.
public struct Decrypted: Sendable {
    /// The plaintext. Its HMAC verified before it was deciphered.
    public let plaintext: [UInt8]
    /// The password, the key or the identity that opened the message.
    public let openedBy: Opener
    /// The kind of message it was (RWSecretKit's `kind` and `literal` read these).
    package let kindName: KindName
    /// What the kind found beside the plaintext (an OpenPGP message's literal data); nil for RNCryptor.
    package let kindFacts: (any Sendable)?

    /// A result as the chain makes it.
    package init(plaintext: [UInt8], openedBy: Opener) {
        self.init(plaintext: plaintext, openedBy: openedBy, kindName: .rncryptor, kindFacts: nil)
    }

    /// A result of another kind (RWSecretKit's opener).
    package init(plaintext: [UInt8], openedBy: Opener, kindName: KindName, kindFacts: (any Sendable)?) {
        self.plaintext = plaintext
        self.openedBy = openedBy
        self.kindName = kindName
        self.kindFacts = kindFacts
    }
}

/// What opened a message: a password of the chain, the key, or an identity.
public enum Opener: Sendable {
    /// This password (its name; never its secret).
    case password(ChainPassword)
    /// The key of key-based RNCryptor messages.
    case key
    /// An identity (an age X25519 identity, an SSH key, an OpenPGP secret key), by the name it was given.
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
