/// A password rejected by a validator: domain, numeric code, description and reason.
/// Never contains the password itself.
public struct ValidationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The validator's domain, e.g. `org.rwsecret.validation.length`.
    public let domain: String
    /// A code unique within the domain.
    public let code: Int
    /// What is wrong, e.g. "the password is empty".
    public let failureDescription: String
    /// Why it matters or what to do, e.g. "RNCryptor needs a non-empty password".
    public let failureReason: String

    /// A failure in `domain` with `code`, saying what is wrong (`description`) and why (`reason`).
    public init(domain: String, code: Int, description: String, reason: String) {
        self.domain = domain
        self.code = code
        self.failureDescription = description
        self.failureReason = reason
    }

    /// A short English description, without secrets.
    public var description: String { "\(failureDescription) (\(failureReason))" }
}

/// A Strategy that accepts a password or says why not.
public protocol PasswordValidator: Sendable {
    /// Returns nil when `password` is acceptable, else the failure.
    func validate(_ password: SecretBytes) -> ValidationFailure?
}
