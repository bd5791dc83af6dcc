/// What kind of identity a stored identity is: how its secret is read. Not frozen: later
/// versions may add kinds (a struct, as ``StoreError/Code``); a store keeps each kind's name
/// (``rawValue``) beside the secret.
public struct IdentityKind: Hashable, Sendable, CustomStringConvertible {
    /// The kind's name as stores keep it and the tool shows it (`age-x25519`, `openpgp`).
    public let rawValue: String

    /// A kind this version knows (RWSecretKit names each, `IdentityStore+Kinds.swift`).
    package init(known rawValue: String) { self.rawValue = rawValue }

    /// The kind named `rawValue`; nil for a name this version does not know.
    public init?(rawValue: String) {
        guard Self.known.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// The names of the kinds a store keeps: a store read by a program of this product alone
    /// keeps every identity as it is, whichever product reads the identities.
    private static let known: Set<String> = ["age-x25519", "openpgp"]

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
    public init(label: String?, kind: IdentityKind, secret: SecretBytes) {
        self.label = label
        self.kind = kind
        self.secret = secret
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
