/// One credential of a chain: what ``MessageOpener`` is given, in order, to open messages of
/// any kind (``MessageOpener/init(chain:legacyFormats:)``), and what it names when one opens
/// (``CredentialName``). The library's credentials conform: a password (``/RWSecretCore/ChainPassword``), the
/// key of key-based RNCryptor messages, from a key file (``/RWSecretCore/MessageKeys``), and every
/// ``Identity`` (``Age/Identity``, ``OpenPGP/Identity``, a program's own). A program writes its
/// own credentials as identities: a type that conforms to this protocol alone opens nothing.
public protocol ChainCredential: Sendable {
    /// How the credential is named when it opens a message. Never its secret.
    var credentialName: CredentialName { get }
}

/// A secret that opens messages written to it, in age's shape (`age.Identity`'s
/// `Unwrap(stanzas)`): given the wrapped keys of a message (an age header's recipient stanzas,
/// an OpenPGP message's public-key session key packets), it unwraps the key that one of them
/// carries for it. Passwords (``/RWSecretCore/ChainPassword``) and the key of key-based RNCryptor messages
/// (``/RWSecretCore/MessageKeys``) are the chain's other credentials (``ChainCredential``); what opened a
/// message is named by ``/RWSecretCore/Opener`` and ``CredentialName``.
///
/// One requirement per kind of wrapped key, each with a default that unwraps nothing: an age
/// identity implements `unwrap(_ stanzas: [Age.Stanza])`, an OpenPGP one
/// `unwrap(_ packets: [OpenPGP.EncryptedSessionKey])`, and neither is cast to the other. The two are
/// not one kind-neutral stanza because they are not one thing: an age stanza carries a 16-byte
/// file key that the header's MAC checks, an OpenPGP packet a session key and its cipher that
/// the message's quick check, MDC or AEAD tag checks; each is the kind's own format, as its
/// peers (age plugins, OpenPGP cards) see it.
///
/// The library's own identities conform: ``Age/Identity`` (X25519 and OpenSSH keys) and
/// ``OpenPGP/Identity`` (OpenPGP secret keys). A program writes its own (a key held in a
/// hardware token, a remote service) and gives it to ``MessageOpener`` with the others, as
/// `age.Decrypt(r, identities...)` takes any:
///
/// ```swift
/// struct HeldElsewhere: Identity {
///     let name = "token"
///     let key: Age.Identity  // or a call to where the key is held
///     func unwrap(_ stanzas: [Age.Stanza]) throws -> SecretBytes? { try key.unwrap(stanzas) }
/// }
/// let opener = MessageOpener(passwords: [], identities: [HeldElsewhere(key: identity)])
/// ```
///
/// An identity costs no key derivation: it is offered after the passwords, in the order given,
/// and the first that unwraps a key the message then verifies opens it.
public protocol Identity: ChainCredential {
    /// How it is named when it opens a message (``/RWSecretCore/Opener/identity(_:)``): where it came
    /// from (a file, `FILE#N`, a store's label). Never its secret.
    var name: String { get }

    /// age's `Unwrap`: the file key (16 bytes) that one of `stanzas` wraps for this identity;
    /// nil when none is for it (age's `ErrIncorrectIdentity`). The caller checks the header's
    /// MAC with the key returned (a wrong key opens nothing). What it throws refuses the file:
    /// a stanza of its type that is malformed, a key that cannot be reached.
    ///
    /// Default: nil (an identity for other kinds).
    func unwrap(_ stanzas: [Age.Stanza]) throws -> SecretBytes?

    /// OpenPGP's: the session key that one of `packets` (the message's public-key encrypted
    /// session key packets) holds for this identity; nil when none is for it. The caller
    /// checks the key with the message (its quick check, then the MDC or the AEAD tags: a
    /// wrong key releases nothing). What it throws refuses the message.
    ///
    /// Default: nil (an identity for other kinds).
    func unwrap(_ packets: [OpenPGP.EncryptedSessionKey]) throws -> OpenPGP.SessionKey?
}

extension Identity {
    /// No age file is written to this identity.
    public func unwrap(_ stanzas: [Age.Stanza]) throws -> SecretBytes? { nil }

    /// No OpenPGP message is written to this identity.
    public func unwrap(_ packets: [OpenPGP.EncryptedSessionKey]) throws -> OpenPGP.SessionKey? { nil }

    /// `identity NAME`.
    public var credentialName: CredentialName { CredentialName(kind: .identity, label: name) }
}

extension ChainPassword: ChainCredential {
    /// The password's chain name (`LABEL`, `FILE:LINE`, `prompt`).
    public var credentialName: CredentialName { CredentialName(kind: .password, label: name) }
}

extension MessageKeys: ChainCredential {
    /// `key-file`.
    public var credentialName: CredentialName { CredentialName(kind: .key, label: "") }
}

/// Someone a file is written to, in age's shape (`age.Recipient`'s `Wrap(fileKey)`): it wraps
/// the file key in the stanzas that only its identity unwraps. ``Age/Recipient`` (`age1…`,
/// `ssh-ed25519`, `ssh-rsa`) conforms; ``Age/encrypt(_:to:armor:)`` takes any.
public protocol Recipient: Sendable {
    /// age's `Wrap`: the stanzas that carry `fileKey` (16 bytes) to this recipient (usually one).
    func wrap(_ fileKey: SecretBytes) throws -> [Age.Stanza]
}

/// The name of the credential that opened a message, as records and `--verbose` write it:
/// a password's chain name (its label, or where a run-only password came from), `identity NAME`,
/// or `key-file`. Never a secret. ``RWSecretCore/Opener/name`` gives it.
public struct CredentialName: Hashable, Sendable, CustomStringConvertible {
    /// What kind of credential it is. Not frozen: later versions may add kinds.
    public struct Kind: Hashable, Sendable {
        private let value: Int
        private init(_ value: Int) { self.value = value }

        /// A password of the chain.
        public static let password = Kind(1)
        /// An identity (``Identity``): an age X25519 or SSH key, an OpenPGP secret key, a consumer's own.
        public static let identity = Kind(2)
        /// The key of key-based RNCryptor messages (``/RWSecretCore/MessageKeys``).
        public static let key = Kind(3)
    }

    /// What kind of credential it is.
    public let kind: Kind
    /// The password's chain name or the identity's name; empty for the key.
    public let label: String

    package init(kind: Kind, label: String) {
        self.kind = kind
        self.label = label
    }

    /// `LABEL` for a password, `identity LABEL` for an identity, `key-file` for the key.
    public var description: String {
        switch kind {
        case .identity: "identity \(label)"
        case .key: "key-file"
        default: label
        }
    }
}

extension Opener {
    /// The name of what opened the message (never a secret).
    public var name: CredentialName {
        switch self {
        case .password(let password): CredentialName(kind: .password, label: password.name)
        case .identity(let name): CredentialName(kind: .identity, label: name)
        case .key: CredentialName(kind: .key, label: "")
        }
    }
}

extension Age {
    /// One recipient stanza of an age header (`-> TYPE ARG…` and its body): what an
    /// ``Identity`` unwraps and a ``Recipient`` wraps.
    public struct Stanza: Sendable, Equatable {
        /// Its type: `X25519`, `ssh-ed25519`, `ssh-rsa`, `scrypt`, a plugin's.
        public let type: String
        /// Its arguments (printable ASCII, no spaces).
        public let arguments: [String]
        /// Its body, decoded (the wrapped file key).
        public let body: [UInt8]

        public init(type: String, arguments: [String], body: [UInt8]) {
            self.type = type
            self.arguments = arguments
            self.body = body
        }

        /// Whether age's header grammar can write it: a type and arguments of printable ASCII
        /// without spaces, none empty.
        var isWritable: Bool {
            ([type] + arguments).allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 33 && $0 <= 126 } }
        }
    }
}

/// An identity the library knows how to offer itself (without calling `unwrap` through the
/// protocol): its credential for the kinds (age stanzas, OpenPGP packets).
package protocol KnownIdentity: Identity {
    var credential: Credential { get }
}

extension Identity {
    /// The credential a kind is offered for this identity: a known identity's own, or the
    /// consumer's identity, called through ``Identity/unwrap(_:)``.
    package var asCredential: Credential {
        (self as? any KnownIdentity)?.credential ?? .identity(self)
    }

    /// Whether this is an OpenPGP secret key (offered to OpenPGP messages, not to age files).
    package var isOpenPGP: Bool {
        if case .openPGPKey = asCredential { return true }
        return false
    }
}

extension Age.Identity: KnownIdentity {
    package var credential: Credential { named.credential }

    /// The file key that one of `stanzas` (an `X25519` one, or the SSH key's type) wraps for
    /// this identity; nil when none does. Throws ``Age/KeyError`` for a stanza of its type
    /// that is malformed or has a low-order share.
    public func unwrap(_ stanzas: [Age.Stanza]) throws -> SecretBytes? {
        do { return try named.unwrap(stanzas) } catch { throw Age.KeyError(.malformed, "\(error)") }
    }
}

extension Age.Recipient: Recipient {
    /// The stanza that carries `fileKey` to this recipient.
    public func wrap(_ fileKey: SecretBytes) throws -> [Age.Stanza] {
        do { return [try recipient.wrap(fileKey: fileKey)] } catch { throw Age.KeyError(.malformed, "\(error)") }
    }
}
