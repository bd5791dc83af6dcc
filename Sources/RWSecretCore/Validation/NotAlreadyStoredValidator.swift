/// Rejects a password that is already stored (under any label).
///
/// Why: the chain would try the same secret twice. Secrets are compared in
/// constant time (`SecretBytes.isEqual`), and the failure never says which
/// label holds the match beyond what the user already knows.
package struct NotAlreadyStoredValidator: ValidationRule {
    /// The validator's error domain.
    package static let domain = "org.rwsecret.validation.duplicate"

    private let stored: [SecretBytes]

    /// A validator that refuses any of the `stored` secrets.
    package init(stored: [SecretBytes]) { self.stored = stored }

    /// Returns nil when `password` passes, else why not.
    package func validate(_ password: SecretBytes) -> ValidationFailure? {
        // Compare against every stored secret, without stopping at the first match.
        var found = false
        for secret in stored where secret.isEqual(to: password) { found = true }
        guard found else { return nil }
        return ValidationFailure(domain: Self.domain, code: 1,
                                 description: "this password is already stored",
                                 reason: "each password is stored once")
    }
}
