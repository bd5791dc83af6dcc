/// A password rejected by a validator: domain, numeric code, description and reason.
/// Never contains the password itself.
public struct ValidationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The validator's domain, e.g. `org.rwsecret.validation.length`.
    public let domain: String
    /// A code unique within the domain.
    public let code: Int
    /// What is wrong, e.g. "the password is empty" (``description`` adds the reason).
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

/// One rule a password passes or fails (the individual validators; package access: a library
/// user composes them through ``PasswordValidator``'s static members).
package protocol ValidationRule: Sendable {
    /// Returns nil when `password` is acceptable, else the failure.
    func validate(_ password: SecretBytes) -> ValidationFailure?
}

/// Accepts a password or says every reason why not: one or more rules, run in order, every
/// failure reported (not only the first).
///
/// Build one from the static members and combine them:
/// `PasswordValidator([.standard, .minimumLength(12), .notAlreadyStored(secrets)])`.
/// Each rule's failures carry its own `domain`:
///
/// | member | domain |
/// |---|---|
/// | ``nonEmpty`` | `org.rwsecret.validation.empty` |
/// | ``noControlCharacters`` | `org.rwsecret.validation.control` |
/// | ``maximumLength`` | `org.rwsecret.validation.maximum-length` |
/// | ``minimumLength(_:)`` | `org.rwsecret.validation.minimum-length` |
/// | ``onlyLetters``, ``onlyDigits``, ``onlyLettersAndDigits`` | `org.rwsecret.validation.character-class` |
/// | ``notAlreadyStored(_:)`` | `org.rwsecret.validation.duplicate` |
///
/// The character-class failures' `code` names the class: 1 ``onlyLetters``, 2 ``onlyDigits``,
/// 3 ``onlyLettersAndDigits``.
public struct PasswordValidator: Sendable {
    /// The rules run, in order.
    package let rules: [any ValidationRule]

    package init(rules: [any ValidationRule]) { self.rules = rules }

    /// Every rule of `validators`, in order.
    public init(_ validators: [PasswordValidator]) { self.rules = validators.flatMap(\.rules) }

    /// A rule of the caller's own: `check` returns nil to accept a password, else the failure.
    public init(_ check: @escaping @Sendable (SecretBytes) -> ValidationFailure?) {
        self.rules = [ClosureRule(check: check)]
    }

    /// Every failure, in the rules' order; empty when the password is accepted.
    public func validate(_ password: SecretBytes) -> [ValidationFailure] {
        rules.compactMap { $0.validate(password) }
    }

    /// Rejects the empty password (RNCryptor derives keys from a non-empty password only).
    public static let nonEmpty = PasswordValidator(rules: [NonEmptyValidator()])
    /// Rejects ASCII and C1 control characters, DEL and the Unicode line and paragraph
    /// separators (a password is one line of text).
    public static let noControlCharacters = PasswordValidator(rules: [NoControlCharactersValidator()])
    /// Rejects a password of more than 1024 bytes of UTF-8.
    public static let maximumLength = PasswordValidator(rules: [MaximumLengthValidator()])
    /// Rejects a password of fewer than `minimum` characters (grapheme clusters, not bytes).
    public static func minimumLength(_ minimum: Int) -> PasswordValidator {
        PasswordValidator(rules: [MinimumLengthValidator(minimum: minimum)])
    }
    /// Accepts only the ASCII letters a–z and A–Z.
    public static let onlyLetters = PasswordValidator(rules: [CharacterClassValidator(.alpha)])
    /// Accepts only the ASCII digits 0–9.
    public static let onlyDigits = PasswordValidator(rules: [CharacterClassValidator(.numeric)])
    /// Accepts only ASCII letters and digits.
    public static let onlyLettersAndDigits = PasswordValidator(rules: [CharacterClassValidator(.alphanumeric)])
    /// Rejects a password equal to one of `stored` (every one compared, in constant time each).
    public static func notAlreadyStored(_ stored: [SecretBytes]) -> PasswordValidator {
        PasswordValidator(rules: [NotAlreadyStoredValidator(stored: stored)])
    }

    /// The rules every password passes: ``nonEmpty``, ``noControlCharacters``, ``maximumLength``.
    public static let standard = PasswordValidator([nonEmpty, noControlCharacters, maximumLength])

    /// The minimum length, in characters, of a new vault's passphrase (``newVaultPassphrase``).
    public static let vaultPassphraseMinimumLength = 8

    /// A new vault's passphrase: ``standard`` and at least 8 characters.
    public static let newVaultPassphrase = PasswordValidator([standard, minimumLength(vaultPassphraseMinimumLength)])

    /// The standard rules (the tool's run-only passwords, `encrypt`).
    package static let runDefault = standard

    /// What the tool's `password add` runs: the standard rules, the options given, and "not already stored".
    package static func passwordAdd(
        minimumLength: Int?, requirement: CharacterClassValidator.Requirement?, stored: [SecretBytes]
    ) -> PasswordValidator {
        var rules = standard.rules
        if let minimumLength { rules.append(MinimumLengthValidator(minimum: minimumLength)) }
        if let requirement { rules.append(CharacterClassValidator(requirement)) }
        rules.append(NotAlreadyStoredValidator(stored: stored))
        return PasswordValidator(rules: rules)
    }
}

/// A caller's own rule.
private struct ClosureRule: ValidationRule {
    let check: @Sendable (SecretBytes) -> ValidationFailure?
    func validate(_ password: SecretBytes) -> ValidationFailure? { check(password) }
}
