// The async forms of the calls that derive a key from a passphrase outside an opening call
// (making a message, reading a protected key): each runs the derivation through `BlockingWork`,
// on a thread of the library's scheduler, while the awaiting task is suspended.

extension Age.Writer {
    /// `init(passphrase:workFactor:armor:)` without holding a Swift concurrency thread during
    /// scrypt.
    public convenience init(passphrase: SecretBytes, workFactor: Int = 18, armor: Bool = false) async {
        let logN = Self.clamped(workFactor)
        let made = await BlockingWork.run { () -> Handed<AgeEncryptor> in
            Handed(value: AgeEncryptor(password: passphrase, workFactor: logN, armor: armor))
        }
        self.init(encryptor: made.value)
    }
}

extension Age.Identity {
    /// `parseSSH(_:name:passphrase:)` without holding a Swift concurrency thread during a
    /// protected key's bcrypt-pbkdf.
    public static func parseSSH(_ text: String, name: String, passphrase: SecretBytes?) async throws(Age.KeyError) -> Age.Identity? {
        try await BlockingWork.run { () throws(Age.KeyError) -> Age.Identity? in try parseSSH(text, name: name, passphrase: passphrase) }
    }
}

extension Age.EncryptedIdentityFile {
    /// `open(passphrase:)` without holding a Swift concurrency thread during scrypt.
    public func open(passphrase: SecretBytes) async throws(Age.KeyError) -> [UInt8]? {
        try await BlockingWork.run { () throws(Age.KeyError) -> [UInt8]? in try self.open(passphrase: passphrase) }
    }
}

extension OpenPGP.Identity {
    /// `parse(_:name:passphrase:)` without holding a Swift concurrency thread during a
    /// protected key's S2K (an iterated hash, or Argon2). The passphrase is required here: a
    /// call with none (or `nil`) reads no protected key, derives nothing, and stays the
    /// synchronous form, in `async` code too.
    public static func parse(_ bytes: some Collection<UInt8>, name: String, passphrase: SecretBytes) async throws(OpenPGP.KeyError) -> [OpenPGP.Identity] {
        let held = SecretBytes(bytes)
        return try await BlockingWork.run { () throws(OpenPGP.KeyError) -> [OpenPGP.Identity] in
            try held.reading { (raw) throws(OpenPGP.KeyError) in try parse(raw, name: name, passphrase: passphrase) }
        }
    }

    /// `parse(_:name:asking:)` without holding a Swift concurrency thread during a protected
    /// key's S2K. `passphrase` is called on the library's worker thread, at most once, and only
    /// when a protected key is met.
    public static func parse(_ bytes: some Collection<UInt8>, name: String,
                             asking passphrase: @escaping @Sendable () -> SecretBytes?) async throws(OpenPGP.KeyError) -> [OpenPGP.Identity] {
        let held = SecretBytes(bytes)
        return try await BlockingWork.run { () throws(OpenPGP.KeyError) -> [OpenPGP.Identity] in
            try held.reading { (raw) throws(OpenPGP.KeyError) in try parse(raw, name: name, asking: passphrase) }
        }
    }

    /// `init(_:name:passphrase:)` without holding a Swift concurrency thread during a protected
    /// key's S2K. As for `parse`, the passphrase is required: without one the synchronous form
    /// is the one called, in `async` code too.
    public init(_ bytes: some Collection<UInt8>, name: String, passphrase: SecretBytes) async throws(OpenPGP.KeyError) {
        let held = SecretBytes(bytes)
        self = try await BlockingWork.run { () throws(OpenPGP.KeyError) -> OpenPGP.Identity in
            try held.reading { (raw) throws(OpenPGP.KeyError) in try OpenPGP.Identity(raw, name: name, passphrase: passphrase) }
        }
    }
}

extension SecretBytes {
    /// `withUnsafeBytes` for a body that throws one error type.
    fileprivate func reading<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        var result: Result<T, E>?
        withUnsafeBytes { raw in result = Result { () throws(E) -> T in try body(raw) } }
        return try result!.get()
    }
}
