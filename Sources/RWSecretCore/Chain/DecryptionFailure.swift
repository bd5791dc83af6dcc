public import SystemPackage

/// Why a message did not open: a ``code`` to act on, the facts it concerns (``formatError``,
/// ``storeError``, ``tried``, ``errno``; RWSecretKit's `kind`), and a ``description`` for people (the
/// tool words the same facts for a terminal).
///
/// The one error of ``PasswordClient``'s `decrypt`, ``VerifiedStream`` and RWSecretKit's `MessageOpener`.
/// Not frozen: a struct, as ``RNCryptorError`` and ``StoreError``, so a later version adds
/// codes without breaking a `switch` over ``code`` (which needs a `default`).
public struct DecryptionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in kind. Not frozen: later versions may add codes.
    public struct Code: Hashable, Sendable {
        private let value: Int
        private init(_ value: Int) { self.value = value }

        /// A line is not base64 (standard or URL-safe, padded or not).
        public static let badBase64 = Code(1)
        /// The message is malformed or of a form not opened, found before any credential was
        /// tried (``DecryptionFailure/formatError`` says more for an RNCryptor message).
        public static let format = Code(2)
        /// A key-based RNCryptor message and no key was given.
        public static let needsKey = Code(3)
        /// The key given did not open this key-based RNCryptor message.
        public static let keyDidNotOpen = Code(4)
        /// The message's MAC verified but its padding is broken (an RNCryptor message, an
        /// Ansible Vault): it was made so by a faulty writer, not changed on the way.
        public static let badPadding = Code(5)
        /// No password of the chain opened the RNCryptor message (``DecryptionFailure/tried``).
        public static let noPasswordOpened = Code(6)
        /// The store could not be opened or read (``DecryptionFailure/storeError``).
        public static let store = Code(7)
        /// A stream's input is not a raw RNCryptor message: base64 text, or a message of
        /// another kind (RWSecretKit's `MessageOpener` opens those).
        public static let notRNCryptor = Code(8)
        /// A regular input file changed while it was read; nothing was released.
        public static let inputChanged = Code(9)
        /// Reading the input failed (``DecryptionFailure/errno``).
        public static let readFailed = Code(10)
        /// The output, or the private file that holds plaintext until it is verified, could
        /// not be created (``DecryptionFailure/errno``; `EOPNOTSUPP`: the folder's filesystem
        /// cannot make an unnamed file).
        public static let createFailed = Code(11)
        /// Writing the output failed (``DecryptionFailure/errno``).
        public static let writeFailed = Code(12)
        /// The private file in the temporary folder (``DecryptionFailure/temporaryFolder``) could
        /// not be made or written, for an output that is not a file: not a fault of the output.
        public static let temporaryFileFailed = Code(13)
        /// No credential given (passwords, identities) opened a message of another kind
        /// (``DecryptionFailure/tried``).
        public static let noCredentialOpened = Code(14)
        /// A message of another kind does not authenticate: its header or its body was changed.
        public static let notAuthentic = Code(15)
        /// The plaintext is larger than an in-memory open allows (open it to a file instead).
        public static let tooLarge = Code(16)
        /// A costly key derivation could not get the memory it needs, even one try at a time
        /// (the message may be sound: try with more memory).
        public static let outOfMemory = Code(17)
    }

    /// What went wrong, in full (package access: the tool words each case).
    package let reason: Reason

    package init(_ reason: Reason) { self.reason = reason }

    /// What went wrong, in kind.
    public var code: Code {
        switch reason {
        case .badBase64: .badBase64
        case .format: .format
        case .needsKey: .needsKey
        case .keyDidNotOpen: .keyDidNotOpen
        case .badPadding: .badPadding
        case .noPasswordOpened: .noPasswordOpened
        case .store: .store
        case .notRNCryptor: .notRNCryptor
        case .inputChanged: .inputChanged
        case .read: .readFailed
        case .create: .createFailed
        case .write: .writeFailed
        case .temporaryFile: .temporaryFileFailed
        case .kind(_, let error, _):
            switch error {
            case .armor, .header, .workFactorTooHigh, .refused, .packetInside: .format
            case .noMatch: .noCredentialOpened
            case .payload("bad padding"): .badPadding
            case .headerMAC, .payload: .notAuthentic
            case .tooLarge: .tooLarge
            case .outOfMemory: .outOfMemory
            case .io: .readFailed
            }
        }
    }

    /// The RNCryptor format's own error (code `format`); nil for the others.
    public var formatError: RNCryptorError? {
        if case .format(let error) = reason { error } else { nil }
    }

    /// The store's error (code `store`); nil for the others.
    public var storeError: StoreError? {
        if case .store(let error) = reason { error } else { nil }
    }

    /// How many passwords (and, for another kind, identities) were tried (codes
    /// `noPasswordOpened`, `noCredentialOpened`, and a failure after a credential fitted); nil
    /// where nothing was counted.
    public var tried: Int? {
        switch reason {
        case .noPasswordOpened(let tried), .kind(_, _, let tried): tried
        default: nil
        }
    }

    /// The system's error of a failed read, create, write or temporary file; nil for the others.
    public var errno: Errno? {
        switch reason {
        case .read(let errno), .create(let errno), .write(let errno), .temporaryFile(let errno, _): errno
        case .kind(_, .io(let errno), _): errno
        default: nil
        }
    }

    /// The temporary folder whose private file failed (code `temporaryFileFailed`): `$TMPDIR`, else /tmp.
    public var temporaryFolder: String? {
        if case .temporaryFile(_, let folder) = reason { folder } else { nil }
    }

    /// What a message of another kind that no credential opened is for (code
    /// `noCredentialOpened`): an age file's recipient stanza types (`scrypt`, `X25519`,
    /// `ssh-ed25519`, …, in its order), an OpenPGP message's key IDs (16 hex digits, as gpg
    /// names them); empty for the others.
    public var recipients: [String] {
        if case .kind(_, .noMatch(let recipients), _) = reason { recipients } else { [] }
    }

    /// The in-memory limit a plaintext went over (code `tooLarge`), in bytes; nil for the others.
    public var plaintextLimit: Int? {
        if case .kind(_, .tooLarge(let limit), _) = reason { limit } else { nil }
    }
}

extension DecryptionFailure {
/// What went wrong, in full: facts, for the tool to word.
package enum Reason: Sendable, Equatable {
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
    /// another kind.
    case notRNCryptor
    /// A stream's regular input file changed while it was read.
    case inputChanged
    /// Reading the input failed.
    case read(Errno)
    /// The private file or the destination could not be created.
    case create(Errno)
    /// Writing the destination (or a file destination's private file) failed.
    case write(Errno)
    /// The private file in the temporary folder, for a destination that is not a file, could
    /// not be made or written.
    case temporaryFile(Errno, folder: String)
    /// A message of another kind did not open: the kind's facts, with how many credentials were tried.
    case kind(KindName, KindError, tried: Int)
}
}

/// The cases as errors, so that the package makes `.noPasswordOpened(tried: 3)` as before.
extension DecryptionFailure {
    /// The failure of a message that travels as text and is not base64 (code `badBase64`):
    /// what a caller throws when ``RNCryptor/Base64/decodeLenient(_:)`` gives nil.
    public static let badBase64 = DecryptionFailure(Reason.badBase64)
    package static func format(_ error: RNCryptorError) -> DecryptionFailure { DecryptionFailure(Reason.format(error)) }
    package static let needsKey = DecryptionFailure(Reason.needsKey)
    package static let keyDidNotOpen = DecryptionFailure(Reason.keyDidNotOpen)
    package static let badPadding = DecryptionFailure(Reason.badPadding)
    package static func noPasswordOpened(tried: Int) -> DecryptionFailure { DecryptionFailure(Reason.noPasswordOpened(tried: tried)) }
    package static func store(_ error: StoreError) -> DecryptionFailure { DecryptionFailure(Reason.store(error)) }
    package static let notRNCryptor = DecryptionFailure(Reason.notRNCryptor)
    package static let inputChanged = DecryptionFailure(Reason.inputChanged)
}

extension DecryptionFailure {
    /// What the end of a chain reports for a message with `header` that no handler
    /// opened: no password did (`tried` of them), or a key-based message met no key.
    package static func endOfChain(for header: MessageHeader, tried: Int = 0) -> DecryptionFailure {
        header.isPasswordBased ? .noPasswordOpened(tried: tried) : .needsKey
    }
}

extension DecryptionFailure {
    /// A short English reason, without secrets.
    public var description: String {
        switch reason {
        case .badBase64: "bad base64"
        case .format(let error): error.description
        case .needsKey: "key-based message and no key to open it"
        case .keyDidNotOpen: "the key did not open it"
        case .badPadding: "bad padding"
        case .noPasswordOpened(let tried): "no password opened it (tried \(tried))"
        case .store(let error): error.description
        case .notRNCryptor: "not a raw RNCryptor message (base64 text, or another kind of message)"
        case .inputChanged: "the input file changed while it was read"
        case .read(let errno): "cannot read the input: \(errno)"
        case .create(let errno): "cannot create the output: \(errno)"
        case .write(let errno): "cannot write the output: \(errno)"
        case .temporaryFile(let errno, let folder): "cannot write a private temporary file in \(folder): \(errno)"
        case .kind(let name, .noMatch, let tried): "no credential opened this \(name.words) (tried \(tried))"
        case .kind(let name, let error, _): "\(name.words): \(error)"
        }
    }
}
