/// The rules for password labels: 1–64 characters, no control characters.
package enum PasswordLabel {
    /// The longest label, in characters.
    package static let maximumLength = 64

    /// Throws `invalidLabel` when `label` breaks the rules.
    package static func validate(_ label: String) throws(StoreError) {
        guard !label.isEmpty else { throw .invalidLabel(label, reason: "a label cannot be empty") }
        guard label.count <= maximumLength else { throw .invalidLabel(label, reason: "a label has at most \(maximumLength) characters") }
        guard !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidLabel(label, reason: "a label cannot contain control characters")
        }
    }
}
