/// Why a message did not decrypt: facts (the tool words them for a terminal).
///
/// The one error of ``PasswordClient/decrypt(_:)``. Not frozen: a later version may add
/// cases, so a `switch` over it should end in a `default` that words the failure with
/// its `description`.
public enum DecryptionFailure: Error, Sendable, Equatable {
    /// The line is not base64 (standard or URL-safe, padded or not).
    case badBase64
    /// A structural problem found before any password was tried.
    case format(RNCryptorError)
    /// A key-based message and no key was given.
    case needsKey
    /// The key given did not open this key-based message.
    case keyDidNotOpen
    /// The HMAC verified but the padding is broken.
    case badPadding
    /// No password in the chain opened it; `tried` passwords were tried.
    case noPasswordOpened(tried: Int)
    /// The store could not be opened or read (what its opener or the store threw).
    case store(StoreError)
}

extension DecryptionFailure {
    /// What the end of a chain reports for a message with `header` that no handler
    /// opened: no password did (`tried` of them), or a key-based message met no key.
    package static func endOfChain(for header: MessageHeader, tried: Int = 0) -> DecryptionFailure {
        header.isPasswordBased ? .noPasswordOpened(tried: tried) : .needsKey
    }
}

extension DecryptionFailure: CustomStringConvertible {
    /// A short English reason, without secrets.
    public var description: String {
        switch self {
        case .badBase64: "bad base64"
        case .format(let error): error.description
        case .needsKey: "key-based message and no key to open it"
        case .keyDidNotOpen: "the key did not open it"
        case .badPadding: "bad padding"
        case .noPasswordOpened(let tried): "no password opened it (tried \(tried))"
        case .store(let error): error.description
        }
    }
}
