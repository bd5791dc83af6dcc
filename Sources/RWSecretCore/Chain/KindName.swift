/// A kind of message, by the name the tool's records write (`rncryptor`, …) and the words a
/// sentence calls it: what a ``Decrypted`` and a ``DecryptionFailure`` of another kind carry.
/// RWSecretKit names the other kinds (its `MessageKindName`) and gives them a public type
/// (`MessageOpener.Kind`); here only RNCryptor's is known.
package struct KindName: Hashable, Sendable {
    /// The name as the tool's records write it.
    package let rawValue: String
    /// What a message of this kind is called in a sentence.
    package let words: String

    package init(rawValue: String, words: String) {
        self.rawValue = rawValue
        self.words = words
    }

    /// RNCryptor's data format.
    package static let rncryptor = KindName(rawValue: "rncryptor", words: "RNCryptor message")

    package static func == (a: KindName, b: KindName) -> Bool { a.rawValue == b.rawValue }
    package func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
