/// Rejects passwords with fewer than N characters, counted as Swift counts `Character`s
/// (grapheme clusters: "é" written as e + combining accent is one).
public struct MinimumLengthValidator: PasswordValidator {
    public static let domain = "org.rwsecret.validation.minimum-length"

    public let minimum: Int

    public init(minimum: Int) { self.minimum = minimum }

    public func validate(_ password: SecretBytes) -> ValidationFailure? {
        let count = password.withUnsafeBytes { String(decoding: $0, as: UTF8.self).count }
        guard count < minimum else { return nil }
        return ValidationFailure(domain: Self.domain, code: 1,
                                 description: "the password is shorter than \(minimum) characters",
                                 reason: "at least \(minimum) characters are required")
    }
}
