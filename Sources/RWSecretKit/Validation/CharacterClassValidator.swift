/// Accepts only the characters of one class (`--require alpha|numeric|alphanumeric`).
public struct CharacterClassValidator: PasswordValidator {
    public static let domain = "org.rwsecret.validation.character-class"

    /// The classes `--require` names. Only ASCII counts: alpha is a–z A–Z, numeric is 0–9.
    public enum Requirement: String, Sendable, CaseIterable {
        case alpha, numeric, alphanumeric

        func allows(_ byte: UInt8) -> Bool {
            let letter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            let digit = (0x30...0x39).contains(byte)
            switch self {
            case .alpha: return letter
            case .numeric: return digit
            case .alphanumeric: return letter || digit
            }
        }

        var wording: String {
            switch self {
            case .alpha: "letters a–z and A–Z"
            case .numeric: "digits 0–9"
            case .alphanumeric: "letters a–z, A–Z and digits 0–9"
            }
        }
    }

    public let requirement: Requirement

    public init(_ requirement: Requirement) { self.requirement = requirement }

    public func validate(_ password: SecretBytes) -> ValidationFailure? {
        let allowed = password.withUnsafeBytes { $0.allSatisfy(requirement.allows) }
        guard !allowed else { return nil }
        return ValidationFailure(domain: Self.domain, code: 1,
                                 description: "the password has characters other than \(requirement.wording)",
                                 reason: "--require \(requirement.rawValue) allows only \(requirement.wording)")
    }
}
