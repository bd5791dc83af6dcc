import RWSecretKit

/// `password add --require`'s classes: the library's character-class validators, in the
/// tool's words. Only ASCII counts, as in the library.
enum PasswordRequirement: String, CaseIterable {
    /// Letters a–z and A–Z (`PasswordValidator.onlyLetters`).
    case alpha
    /// Digits 0–9 (`PasswordValidator.onlyDigits`).
    case numeric
    /// Letters and digits (`PasswordValidator.onlyLettersAndDigits`).
    case alphanumeric

    /// The library's validator of this class.
    var validator: PasswordValidator {
        switch self {
        case .alpha: .onlyLetters
        case .numeric: .onlyDigits
        case .alphanumeric: .onlyLettersAndDigits
        }
    }

    /// The characters it allows, in words ("digits 0–9").
    var wording: String {
        switch self {
        case .alpha: "letters a–z and A–Z"
        case .numeric: "digits 0–9"
        case .alphanumeric: "letters a–z, A–Z and digits 0–9"
        }
    }

    /// The requirement `failure` broke (the library's documented character-class domain and
    /// codes: 1 alpha, 2 numeric, 3 alphanumeric); nil for any other failure.
    static func brokenBy(_ failure: ValidationFailure) -> PasswordRequirement? {
        guard failure.domain == "org.rwsecret.validation.character-class", allCases.indices.contains(failure.code - 1) else { return nil }
        return allCases[failure.code - 1]
    }

    /// What `password add` runs: the standard rules, the options given, and "not already stored"
    /// (in that order: the first failures are the ones the user typed).
    static func passwordAdd(minimumLength: Int?, requirement: PasswordRequirement?, stored: [SecretBytes]) -> PasswordValidator {
        var validators = [PasswordValidator.standard]
        if let minimumLength { validators.append(.minimumLength(minimumLength)) }
        if let requirement { validators.append(requirement.validator) }
        validators.append(.notAlreadyStored(stored))
        return PasswordValidator(validators)
    }
}

extension ValidationFailure {
    /// Whether this is the "already stored" failure (`PasswordValidator.notAlreadyStored`'s).
    var isAlreadyStored: Bool { domain == "org.rwsecret.validation.duplicate" }
}
