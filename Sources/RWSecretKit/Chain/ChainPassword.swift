/// A password as the chain sees it: the secret and where it came from.
public struct ChainPassword: Sendable {
    /// What to call it in output: a stored label, `FILE:LINE` of a password file,
    /// `prompt` or `RWSECRET_PASSWORD`. Never the secret.
    public let name: String
    /// The password.
    public let secret: SecretBytes

    public init(name: String, secret: SecretBytes) {
        self.name = name
        self.secret = secret
    }
}
