/// Rejects passwords with fewer than N characters, counted as Swift counts `Character`s
/// (grapheme clusters: "é" written as e + combining accent is one).
package struct MinimumLengthValidator: ValidationRule {
    /// The validator's error domain.
    package static let domain = "org.rwsecret.validation.minimum-length"

    /// The fewest characters (Swift `Character`s) a password may have.
    package let minimum: Int

    /// A validator that needs at least `minimum` characters.
    package init(minimum: Int) { self.minimum = minimum }

    /// Returns nil when `password` passes, else why not.
    package func validate(_ password: SecretBytes) -> ValidationFailure? {
        let count = password.withUnsafeBytes { String(decoding: $0, as: UTF8.self).count }
        guard count < minimum else { return nil }
        return ValidationFailure(domain: Self.domain, code: 1,
                                 description: "the password is shorter than \(minimum) characters",
                                 reason: "at least \(minimum) characters are required")
    }
}
