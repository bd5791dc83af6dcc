/// What kind of identity a stored identity is: how its secret is read. Not frozen: later
/// versions may add kinds (a struct, as ``StoreError/Code``); a store keeps each kind's name
/// (``rawValue``) beside the secret.
public struct IdentityKind: Hashable, Sendable, CustomStringConvertible {
    /// The kind's name as stores keep it and the tool shows it (`age-x25519`, `openpgp`).
    public let rawValue: String

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The kind named `rawValue`; nil for a name this version does not know.
    public init?(rawValue: String) {
        guard let known = Self.known.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    /// An age X25519 identity; its secret is the `AGE-SECRET-KEY-1…` text.
    public static let ageX25519 = IdentityKind("age-x25519")
    /// An OpenPGP secret key; its secret is the transferable secret key in binary form with
    /// its secret packets unprotected (S2K usage 0), as gpg --import takes it.
    public static let openPGP = IdentityKind("openpgp")

    private static let known: [IdentityKind] = [.ageX25519, .openPGP]

    /// ``rawValue``.
    public var description: String { rawValue }
}

/// An identity (the private side of a recipient) and the label it is stored under.
public struct StoredIdentity: Sendable {
    /// The label (1–64 characters, no control characters), a namespace apart from the passwords'.
    public let label: String
    /// How its secret is read.
    public let kind: IdentityKind
    /// The secret as its kind writes it (`AGE-SECRET-KEY-1…`; an OpenPGP key's unprotected
    /// binary form), wiped when released.
    public let secret: SecretBytes

    /// A stored identity, as a store reads it back.
    public init(label: String, kind: IdentityKind, secret: SecretBytes) {
        self.label = label
        self.kind = kind
        self.secret = secret
    }

    /// The age identity this holds, named by its label; nil when it is another kind or its
    /// secret is not one (a damaged item).
    public var age: Age.Identity? {
        ageIdentity.map { Age.Identity(named: NamedIdentity(name: label, identity: $0)) }
    }

    /// The OpenPGP secret key this holds, named by its label; nil when it is another kind or
    /// its secret is not one (a damaged item).
    public var openPGP: OpenPGP.Identity? {
        openPGPKey.map { OpenPGP.Identity(named: NamedIdentity(name: label, openPGP: $0)) }
    }

    /// The identity this holds as ``MessageOpener`` takes it, named by its label; nil for a
    /// damaged item or a kind this version does not read.
    public var identity: (any Identity)? {
        switch kind {
        case .ageX25519: age
        case .openPGP: openPGP
        default: nil
        }
    }

    /// The age identity this holds; nil when its secret is not one (a damaged item).
    package var ageIdentity: AgeX25519Identity? {
        guard kind == .ageX25519, let text = secret.decodedUTF8() else { return nil }
        return AgeX25519Identity(text)
    }

    /// The OpenPGP secret key this holds; nil when its secret is not one (a damaged item).
    package var openPGPKey: OpenPGPTransferableKey? {
        guard kind == .openPGP else { return nil }
        var bytes = secret.withUnsafeBytes { Array($0) }
        defer { Crypto.cleanse(&bytes) }
        return try? OpenPGPTransferableKey.parse(bytes, secret: true).first
    }
}

/// An identity to store: its label (nil: the lowest free `identity-N`), kind and secret.
public struct IdentityToAdd: Sendable {
    /// The label to store it under; nil for the lowest free `identity-N`.
    public let label: String?
    /// How its secret is read.
    public let kind: IdentityKind
    /// The secret as its kind writes it (``StoredIdentity/secret``), wiped when released.
    public let secret: SecretBytes

    /// An identity to add under `label` (nil: the lowest free `identity-N`).
    public init(label: String?, kind: IdentityKind = .ageX25519, secret: SecretBytes) {
        self.label = label
        self.kind = kind
        self.secret = secret
    }

    /// An age X25519 identity to add (its `AGE-SECRET-KEY-1…` text); nil for an OpenSSH key,
    /// which a store does not keep.
    public init?(label: String?, age identity: Age.Identity) {
        guard let secret = identity.secretKey else { return nil }
        self.init(label: label, kind: .ageX25519, secret: secret)
    }

    /// An OpenPGP secret key to add, kept unprotected under the store's own protection (read
    /// once with its passphrase by `OpenPGP.Identity.parse(_:name:asking:)`).
    public init(label: String?, openPGP identity: OpenPGP.Identity) {
        // Read as a secret key: its unprotected form is there.
        self.init(label: label, kind: .openPGP, secret: identity.key.unprotected!)
    }
}

/// A store that also keeps identities, as typed items of their own beside the passwords: a
/// password's list, chain and commands never see an identity, nor an identity's a password.
/// Identity labels are a namespace of their own (a password and an identity may share one).
///
/// The same rules as the passwords': stored order, all-or-nothing changes under the store's
/// lock, a secret stored once, no secret in any error. ``MemoryPasswordStore``,
/// ``KeyringPasswordStore`` and ``VaultPasswordStore`` conform.
///
/// ```swift
/// let (identity, secretKey, recipient) = Age.Identity.generate(name: "laptop")
/// let store: any IdentityStore = MemoryPasswordStore()
/// try store.addIdentities([IdentityToAdd(label: "laptop", secret: secretKey)])
/// let identities = try store.identities().compactMap(\.identity)  // for MessageOpener
/// ```
public protocol IdentityStore: PasswordStore {
    /// Every identity in stored order.
    func identities() throws(StoreError) -> [StoredIdentity]
    /// Stores every identity, in order, or none (`labelsExist`; a secret already stored:
    /// `passwordRejected`). Returns the labels used.
    @discardableResult
    func addIdentities(_ identities: [IdentityToAdd]) throws(StoreError) -> [String]
    /// Removes every identity in `labels`, or none when one is unknown (`unknownLabels`).
    func removeIdentities(labels: [String]) throws(StoreError)
    /// Renames an identity, keeping its place in the stored order.
    func renameIdentity(_ label: String, to newLabel: String) throws(StoreError)
}

extension IdentityStore {
    /// The identity labels in stored order.
    public func identityLabels() throws(StoreError) -> [String] { try identities().map(\.label) }

    /// The labels for `identities` (nil: the lowest free `identity-N`), checked against the
    /// identities stored: `invalidLabel`, `labelExists`/`labelsExist`, and a secret already
    /// stored (or given twice) refused as `passwordRejected` (`NotAlreadyStoredValidator`).
    package static func planIdentities(_ identities: [IdentityToAdd], stored: [StoredIdentity]) throws(StoreError) -> [String] {
        var used = stored.map(\.label)
        var clashes: [String] = []
        var labels: [String] = []
        for identity in identities {
            var label = identity.label
            if label == nil {
                var n = 1
                while used.contains("identity-\(n)") { n += 1 }
                label = "identity-\(n)"
            }
            try PasswordLabel.validate(label!)
            if used.contains(label!) { if !clashes.contains(label!) { clashes.append(label!) } } else { used.append(label!) }
            labels.append(label!)
        }
        guard clashes.isEmpty else {
            throw identities.count == 1 ? .labelExists(clashes[0]) : .labelsExist(clashes)
        }
        var secrets = stored.map(\.secret)
        for (identity, label) in zip(identities, labels) {
            if let failure = NotAlreadyStoredValidator(stored: secrets).validate(identity.secret) {
                throw .passwordRejected(label: label, [failure])
            }
            secrets.append(identity.secret)
        }
        return labels
    }
}
