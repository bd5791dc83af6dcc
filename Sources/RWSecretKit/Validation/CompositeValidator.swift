/// Runs every validator and reports every failure, not only the first.
public struct CompositeValidator: Sendable {
    /// The validators run, in order.
    public let validators: [any PasswordValidator]

    /// A composite of `validators`.
    public init(_ validators: [any PasswordValidator]) { self.validators = validators }

    /// Every failure, in the validators' order; empty when the password is accepted.
    public func validate(_ password: SecretBytes) -> [ValidationFailure] {
        validators.compactMap { $0.validate(password) }
    }

    /// The validators every password passes: non-empty, no control characters, at most 1024 bytes.
    public static let defaultValidators: [any PasswordValidator] = [
        NonEmptyValidator(), NoControlCharactersValidator(), MaximumLengthValidator(),
    ]

    /// The default validators (the tool's run-only passwords, `encrypt`).
    package static let runDefault = CompositeValidator(defaultValidators)

    /// The minimum length of a new vault's passphrase.
    package static let vaultPassphraseMinimumLength = 8

    /// A new vault's passphrase: the default validators and at least 8 characters.
    public static let newVaultPassphrase = CompositeValidator(
        defaultValidators + [MinimumLengthValidator(minimum: vaultPassphraseMinimumLength)])

    /// What the tool's `password add` runs: the defaults, the options given, and "not already stored".
    package static func passwordAdd(
        minimumLength: Int?, requirement: CharacterClassValidator.Requirement?, stored: [SecretBytes]
    ) -> CompositeValidator {
        var validators = defaultValidators
        if let minimumLength { validators.append(MinimumLengthValidator(minimum: minimumLength)) }
        if let requirement { validators.append(CharacterClassValidator(requirement)) }
        validators.append(NotAlreadyStoredValidator(stored: stored))
        return CompositeValidator(validators)
    }
}
