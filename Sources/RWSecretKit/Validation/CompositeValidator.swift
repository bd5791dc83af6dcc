/// Runs every validator that applies and reports every failure, not only the first.
public struct CompositeValidator: Sendable {
    public let validators: [any PasswordValidator]

    public init(_ validators: [any PasswordValidator]) { self.validators = validators }

    /// The validators every password passes: non-empty, no control characters, at most 1024 bytes.
    public static let runDefault = CompositeValidator([NonEmptyValidator(), NoControlCharactersValidator(), MaximumLengthValidator()])

    /// Every failure, in validator order; empty when the password is accepted.
    public func validate(_ password: SecretBytes) -> [ValidationFailure] {
        validators.compactMap { $0.validate(password) }
    }
}
