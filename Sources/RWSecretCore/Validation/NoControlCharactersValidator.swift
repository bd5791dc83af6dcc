/// Rejects control characters (TAB included) and line breaks.
///
/// Why: passwords are read one per line and typed at prompts; a control
/// character could not be entered again the same way, and a line break
/// would split it in two.
package struct NoControlCharactersValidator: ValidationRule {
    /// The validator's error domain.
    package static let domain = "org.rwsecret.validation.control"

    /// Creates it.
    package init() {}

    /// Returns nil when `password` passes, else why not.
    package func validate(_ password: SecretBytes) -> ValidationFailure? {
        let hasControl = password.withUnsafeBytes { raw in
            // ASCII controls and DEL on the bytes, then C1 controls and
            // Unicode line/paragraph separators on the decoded scalars.
            if raw.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return true }
            var iterator = raw.makeIterator()
            var decoder = UTF8()
            while case .scalarValue(let scalar) = decoder.decode(&iterator) {
                switch scalar.properties.generalCategory {
                case .control, .lineSeparator, .paragraphSeparator: return true
                default: continue
                }
            }
            return false
        }
        guard hasControl else { return nil }
        return ValidationFailure(domain: Self.domain, code: 1,
                                 description: "the password contains a control character or line break",
                                 reason: "TAB, line breaks and other control characters are not allowed")
    }
}
