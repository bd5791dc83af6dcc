// The kinds of identity a store keeps, as RWSecretKit reads them (the store itself is RWSecretCore's).

extension IdentityKind {
    /// An age X25519 identity; its secret is the `AGE-SECRET-KEY-1…` text.
    public static let ageX25519 = IdentityKind(known: "age-x25519")
    /// An OpenPGP secret key; its secret is the transferable secret key in binary form with
    /// its secret packets unprotected (S2K usage 0), as gpg --import takes it.
    public static let openPGP = IdentityKind(known: "openpgp")
}

extension StoredIdentity {
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

extension IdentityToAdd {
    /// An age X25519 identity to add under `label` (nil: the lowest free `identity-N`): its
    /// `AGE-SECRET-KEY-1…` text.
    public init(label: String?, secret: SecretBytes) {
        self.init(label: label, kind: .ageX25519, secret: secret)
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
