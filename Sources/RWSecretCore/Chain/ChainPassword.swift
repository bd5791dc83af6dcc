/// A password as the chain sees it: the secret and where it came from.
///
/// The secret goes in and never comes out: a program that walks the chain, or reads
/// `Opener.password`, sees the name only.
public struct ChainPassword: Sendable {
    /// What to call it in output: a stored label, `FILE:LINE` of a password file,
    /// `prompt` or `RWSECRET_PASSWORD`. Never the secret.
    public let name: String
    /// The password (package access: the chain's handlers and the tool read it).
    package let secret: SecretBytes
    /// Which of its forms (`MessageHeader.kdfPasswords(_:)`) opened a message, and that
    /// message's version: set on the password a `Decrypted` names, so that the chain can
    /// try that form first next time. Nil when not known; never part of equality.
    package internal(set) var openedForm: (version: UInt8, index: Int)?

    /// A password named `name` (never the secret) for the chain.
    public init(name: String, secret: SecretBytes) {
        self.name = name
        self.secret = secret
    }
}
