/// Rejects the empty password: RNCryptor derives keys from a non-empty password only.
package struct NonEmptyValidator: ValidationRule {
    /// The validator's error domain.
    package static let domain = "org.rwsecret.validation.empty"

    /// Creates it.
    package init() {}

    /// Returns nil when `password` passes, else why not.
    package func validate(_ password: SecretBytes) -> ValidationFailure? {
        guard password.count == 0 else { return nil }
        return ValidationFailure(domain: Self.domain, code: 1,
                                 description: "the password is empty",
                                 reason: "RNCryptor needs a non-empty password")
    }
}
