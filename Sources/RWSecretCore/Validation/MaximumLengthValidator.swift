/// Rejects passwords over 1024 bytes of UTF-8.
package struct MaximumLengthValidator: ValidationRule {
    /// The validator's error domain.
    package static let domain = "org.rwsecret.validation.maximum-length"
    /// The longest password, in bytes of UTF-8.
    package static let maximumBytes = 1024
    /// Creates it.
    package init() {}
    /// Returns nil when `password` passes, else why not.
    package func validate(_ password: SecretBytes) -> ValidationFailure? {
        password.count <= Self.maximumBytes ? nil : ValidationFailure(
            domain: Self.domain, code: 3, description: "the password is longer than \(Self.maximumBytes) bytes",
            reason: "at most \(Self.maximumBytes) bytes of UTF-8 are accepted")
    }
}
