/// What an input that holds no message is, said once for the whole input (issue 35, item 5):
/// plain text, binary data, a YAML file with no `!vault` value, or one whose `!vault` values
/// cannot be read. ``description`` is what `rwsecret decrypt` says.
///
/// Not frozen: later versions may add cases (a `switch` needs a `default`).
public struct NotAMessage: Hashable, Sendable, CustomStringConvertible {
    private let value: Int
    private init(_ value: Int) { self.value = value }

    /// Text none of whose rows is a message.
    public static let plainText = NotAMessage(1)
    /// NUL bytes, control characters, or mostly not UTF-8 (`MessageRows.InputKind.binary`).
    public static let binaryData = NotAMessage(2)
    /// A YAML file with no `!vault` value.
    public static let yamlWithoutVault = NotAMessage(3)
    /// A YAML file with `!vault` tags whose values cannot be read (no or TAB indentation).
    public static let yamlVaultUnread = NotAMessage(4)

    /// What it is, in words ("not a secret message (plain text)").
    public var description: String {
        switch self {
        case .binaryData: "not a secret message (binary data)"
        case .yamlWithoutVault: "a YAML file with no `!vault` value"
        case .yamlVaultUnread: "a YAML file whose `!vault` values cannot be read: each value's lines must be indented with spaces, below its key"
        default: "not a secret message (plain text)"
        }
    }

    /// `description` (the name the tool's words go by).
    package var words: String { description }
}
