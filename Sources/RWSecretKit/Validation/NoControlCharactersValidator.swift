/// Rejects control characters (TAB included) and line breaks: they cannot be typed
/// back reliably and break the one-password-per-line files and prompts.
public struct NoControlCharactersValidator: PasswordValidator {
    public static let domain = "org.rwsecret.validation.control"
    public init() {}
    public func validate(_ password: SecretBytes) -> ValidationFailure? {
        let hasControl = password.withUnsafeBytes { bytes -> Bool in
            // C0 controls and DEL are single bytes in UTF-8; C1 controls are U+0080–U+009F (0xC2 0x80–0x9F);
            // U+2028/U+2029 (line and paragraph separators) are 0xE2 0x80 0xA8/0xA9.
            for i in bytes.indices {
                let b = bytes[i]
                if b < 0x20 || b == 0x7f { return true }
                if b == 0xc2, i + 1 < bytes.count, (0x80...0x9f).contains(bytes[i + 1]) { return true }
                if b == 0xe2, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xa8 || bytes[i + 2] == 0xa9 { return true }
            }
            return false
        }
        return hasControl ? ValidationFailure(
            domain: Self.domain, code: 2, description: "the password contains a control character or line break",
            reason: "control characters (TAB included) and line breaks are not allowed") : nil
    }
}
