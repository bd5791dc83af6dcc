import RWSecretKit

/// Decryption outcomes in the tool's words: the library gives facts, the tool names its options.
extension DecryptionFailure {
    /// The reason printed after `FILE:LINE:` and in JSON `error` members (the spec's wording).
    var words: String {
        switch self {
        case .needsKey: "key-based message needs --key-file"
        default: description
        }
    }
}

extension Opener {
    /// What JSON `password` members and `--verbose` call it: the password's chain name, or `key-file`.
    var words: String { passwordName ?? "key-file" }
}
