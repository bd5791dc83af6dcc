/// A message opened by the chain: its plaintext, verified, and what opened it.
public struct Decrypted: Sendable {
    /// The plaintext. Its HMAC verified before it was deciphered.
    public let plaintext: [UInt8]
    /// The password or the key that opened the message.
    public let openedBy: Opener

    /// A result as the chain makes it.
    public init(plaintext: [UInt8], openedBy: Opener) {
        self.plaintext = plaintext
        self.openedBy = openedBy
    }
}

/// What opened a message: a password of the chain, or the key.
public enum Opener: Sendable {
    /// This password (and `ChainPassword.openedForm` says which of its forms).
    case password(ChainPassword)
    /// The key of key-based messages (`KeyHandler`).
    case key

    /// The password's chain name; nil for the key.
    public var passwordName: String? {
        if case .password(let password) = self { password.name } else { nil }
    }
}
