/// Rejects passwords over 1024 bytes of UTF-8.
public struct MaximumLengthValidator: PasswordValidator {
    public static let domain = "org.rwsecret.validation.maximum-length"
    public static let maximumBytes = 1024
    public init() {}
    public func validate(_ password: SecretBytes) -> ValidationFailure? {
        password.count <= Self.maximumBytes ? nil : ValidationFailure(
            domain: Self.domain, code: 3, description: "the password is longer than \(Self.maximumBytes) bytes",
            reason: "at most \(Self.maximumBytes) bytes of UTF-8 are accepted")
    }
}
