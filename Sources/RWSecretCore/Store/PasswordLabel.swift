/// The rules for labels of passwords and identities in a store: 1–64 characters, no control
/// characters. The library's stores refuse a label that breaks them; a program checks one before asking
/// for a secret to store under it.
public enum PasswordLabel {
    /// The longest label, in characters.
    public static let maximumLength = 64

    /// Throws a ``StoreError`` (code ``StoreError/Code/invalidLabel``, its description naming
    /// the rule) when `label` breaks the rules.
    public static func validate(_ label: String) throws(StoreError) {
        guard !label.isEmpty else { throw .invalidLabel(label, reason: "a label cannot be empty") }
        guard label.count <= maximumLength else { throw .invalidLabel(label, reason: "a label has at most \(maximumLength) characters") }
        guard !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidLabel(label, reason: "a label cannot contain control characters")
        }
    }
}
