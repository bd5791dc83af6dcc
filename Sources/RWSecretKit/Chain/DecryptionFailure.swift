public import SystemPackage

/// Why a message did not decrypt: facts (the tool words them for a terminal).
///
/// The one error of ``PasswordClient/decrypt(_:)`` and ``VerifiedStream``. Not frozen: a later version may add
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
    /// A stream's input is not a raw RNCryptor message: base64 text, or a message of
    /// another kind (age, Ansible Vault, OpenPGP).
    case notRNCryptor
    /// A stream's regular input file changed while it was read.
    case inputChanged
    /// A stream could not read its input, or create or write its output (or the private
    /// file that holds plaintext until it is verified): the system's error.
    case io(Errno)
}

extension DecryptionFailure {
    /// The failure a stream's `failure` is to a library user.
    package init(_ failure: VerifiedStream.Failure) {
        switch failure {
        case .chainUnavailable(let error as DecryptionFailure): self = error
        case .chainUnavailable(let error as StoreError): self = .store(error)
        case .chainUnavailable(let error): self = .store(.io("\(error)"))
        case .format(let error): self = .format(error)
        case .base64Text, .otherKind: self = .notRNCryptor
        case .notOpened(let failure): self = failure
        case .inputChanged: self = .inputChanged
        case .read(let errno), .create(let errno), .write(let errno), .temporaryFile(let errno, _): self = .io(errno)
        }
    }
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
        case .notRNCryptor: "not a raw RNCryptor message (base64 text, or another kind of message)"
        case .inputChanged: "the input file changed while it was read"
        case .io(let errno): "\(errno)"
        }
    }
}
