/// What kind of identity a stored identity is: how its secret is read.
package enum IdentityKind: String, Sendable, CaseIterable {
    /// An age X25519 identity; its secret is the `AGE-SECRET-KEY-1…` text.
    case ageX25519 = "age-x25519"
    /// An OpenPGP secret key; its secret is the transferable secret key in binary form with
    /// its secret packets unprotected (S2K usage 0), as gpg --import takes it.
    case openPGP = "openpgp"
}

/// An identity (the private side of a recipient) and the label it is stored under.
package struct StoredIdentity: Sendable {
    package let label: String
    package let kind: IdentityKind
    /// The secret as its kind writes it (`AGE-SECRET-KEY-1…`), wiped when released.
    package let secret: SecretBytes

    package init(label: String, kind: IdentityKind, secret: SecretBytes) {
        self.label = label
        self.kind = kind
        self.secret = secret
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
package struct IdentityToAdd: Sendable {
    package let label: String?
    package let kind: IdentityKind
    package let secret: SecretBytes

    package init(label: String?, kind: IdentityKind = .ageX25519, secret: SecretBytes) {
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
/// lock, a secret stored once, no secret in any error.
package protocol IdentityStore: PasswordStore {
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
    package func identityLabels() throws(StoreError) -> [String] { try identities().map(\.label) }

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
