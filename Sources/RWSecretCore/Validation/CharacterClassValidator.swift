/// Accepts only the characters of one class: letters, digits, or both (ASCII only).
package struct CharacterClassValidator: ValidationRule {
    /// The validator's error domain.
    package static let domain = "org.rwsecret.validation.character-class"

    /// The classes. Only ASCII counts: alpha is a–z A–Z, numeric is 0–9.
    package enum Requirement: String, Sendable, CaseIterable {
        /// Letters a–z and A–Z.
        case alpha
        /// Digits 0–9.
        case numeric
        /// Letters and digits.
        case alphanumeric

        func allows(_ byte: UInt8) -> Bool {
            let letter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            let digit = (0x30...0x39).contains(byte)
            switch self {
            case .alpha: return letter
            case .numeric: return digit
            case .alphanumeric: return letter || digit
            }
        }

        /// The characters it allows, in words ("digits 0–9").
        package var wording: String {
            switch self {
            case .alpha: "letters a–z and A–Z"
            case .numeric: "digits 0–9"
            case .alphanumeric: "letters a–z, A–Z and digits 0–9"
            }
        }
    }

    /// The class of characters allowed.
    package let requirement: Requirement

    /// The requirement a failure of this validator broke; nil for any other failure.
    package static func requirement(brokenBy failure: ValidationFailure) -> Requirement? {
        guard failure.domain == domain else { return nil }
        return Requirement.allCases.first { code(of: $0) == failure.code }
    }

    /// One code per class (1 alpha, 2 numeric, 3 alphanumeric), so that a caller knows which rule was broken.
    private static func code(of requirement: Requirement) -> Int { Requirement.allCases.firstIndex(of: requirement)! + 1 }

    /// A validator that allows only `requirement`'s characters.
    package init(_ requirement: Requirement) { self.requirement = requirement }

    /// Returns nil when `password` passes, else why not.
    package func validate(_ password: SecretBytes) -> ValidationFailure? {
        let allowed = password.withUnsafeBytes { $0.allSatisfy(requirement.allows) }
        guard !allowed else { return nil }
        return ValidationFailure(domain: Self.domain, code: Self.code(of: requirement),
                                 description: "the password has characters other than \(requirement.wording)",
                                 reason: "the \(requirement.rawValue) requirement allows only \(requirement.wording)")
    }
}
