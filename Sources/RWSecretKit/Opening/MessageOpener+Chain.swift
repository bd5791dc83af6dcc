extension MessageOpener {
    /// An opener over one chain of credentials, in the order given: passwords
    /// (``/RWSecretCore/ChainPassword``), the key of key-based RNCryptor messages (``/RWSecretCore/MessageKeys``, from a
    /// key file) and identities (``Age/Identity``, ``OpenPGP/Identity``, a program's own
    /// ``Identity``), mixed as a program holds them. Each message, of any kind, is offered
    /// the credentials it has a place for: the passwords in their order, then the identities
    /// in theirs (an identity costs no key derivation); the first that opens it wins, and
    /// ``/RWSecretCore/Decrypted/openedBy`` names it (``RWSecretCore/Opener/name``: `LABEL`, `identity NAME`, `key-file`).
    ///
    /// ```swift
    /// let chain: [any ChainCredential] = [
    ///     ChainPassword(name: "app", secret: password),
    ///     try MessageKeys(encryptionKey: encryptionKey, hmacKey: hmacKey),
    ///     try OpenPGP.Identity(keyFileBytes, name: "alice.sec.asc"),
    /// ]
    /// let opened = try MessageOpener(chain: chain).open(message)
    /// print(opened.openedBy.name)  // app, key-file or identity alice.sec.asc
    /// ```
    ///
    /// The first ``/RWSecretCore/MessageKeys`` is the key (RNCryptor has a place for one). A type of the
    /// program's own that is not an ``Identity`` has no place in any message: it is not offered.
    public init(chain: [any ChainCredential], legacyFormats: LegacyFormats = .refused) {
        var passwords: [ChainPassword] = []
        var identities: [any Identity] = []
        var keys: MessageKeys?
        for credential in chain {
            if let password = credential as? ChainPassword {
                passwords.append(password)
            } else if let key = credential as? MessageKeys {
                if keys == nil { keys = key }
            } else if let identity = credential as? any Identity {
                identities.append(identity)
            }
        }
        self.init(passwords: passwords, identities: identities, keys: keys, legacyFormats: legacyFormats)
    }
}
