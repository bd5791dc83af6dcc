/// Rejects the empty password: RNCryptor cannot encrypt under one.
public struct NonEmptyValidator: PasswordValidator {
    public static let domain = "org.rwsecret.validation.empty"
    public init() {}
    public func validate(_ password: SecretBytes) -> ValidationFailure? {
        password.count > 0 ? nil : ValidationFailure(
            domain: Self.domain, code: 1, description: "the password is empty",
            reason: "RNCryptor needs a non-empty password")
    }
}
