/// A whole RNCryptor message in memory, structurally checked once.
///
/// Structural problems (too short, bad length, unknown version or options)
/// are found by `init`, before any password is tried: no password can fix them.
/// Then each candidate costs one key derivation per form of the password (the
/// forms RNCryptor implementations wrote a non-ASCII password in; one for ASCII):
/// the HMAC key decides, and only the form that matches pays for the encryption key.
///
/// Version 0 authenticates the ciphertext only (HMAC-SHA1, padded to 32 bytes
/// with zeros, which are checked too): its header — salts and counter IV — is
/// not covered, and a changed IV changes the plaintext without detection.
package struct Message: Sendable {
    /// The raw message.
    package let bytes: [UInt8]
    /// Its parsed header.
    package let header: MessageHeader

    /// Parses and structurally validates `bytes`.
    package init(_ bytes: [UInt8]) throws(RNCryptorError) {
        header = try MessageHeader(parsing: bytes)
        try header.validate(messageLength: bytes.count)
        self.bytes = bytes
    }

    private var ciphertextRange: Range<Int> { header.length..<(bytes.count - Crypto.tagSize) }
    private var tag: ArraySlice<UInt8> { bytes[(bytes.count - Crypto.tagSize)...] }

    /// The HMAC key a PBKDF2 input gives for this message (password-based only).
    ///
    /// `kdfPassword` is one of `header.kdfPasswords(password)`, not the password as typed.
    package func hmacKey(forKDFPassword kdfPassword: SecretBytes, iterations: Int = KeyDerivation.iterations) -> SecretBytes {
        guard let salts = header.salts else { preconditionFailure("hmacKey(for:) on a key-based message") }
        return KeyDerivation.key(password: kdfPassword, salt: salts.hmac, iterations: iterations)
    }

    /// The encryption key a PBKDF2 input gives for this message (password-based only).
    package func encryptionKey(forKDFPassword kdfPassword: SecretBytes, iterations: Int = KeyDerivation.iterations) -> SecretBytes {
        guard let salts = header.salts else { preconditionFailure("encryptionKey(for:) on a key-based message") }
        return KeyDerivation.key(password: kdfPassword, salt: salts.encryption, iterations: iterations)
    }

    /// The HMAC key a password gives for this message in the reference implementation's form.
    package func hmacKey(for password: SecretBytes) -> SecretBytes {
        hmacKey(forKDFPassword: header.kdfPassword(password))
    }

    /// The encryption key a password gives for this message in the reference implementation's form.
    package func encryptionKey(for password: SecretBytes) -> SecretBytes {
        encryptionKey(forKDFPassword: header.kdfPassword(password))
    }

    /// Whether the message's HMAC matches under `hmacKey` (compared in constant time).
    package func isAuthentic(hmacKey: SecretBytes) -> Bool {
        let authenticator = BodyAuthenticator(header: header, hmacKey: hmacKey)
        bytes[ciphertextRange].withUnsafeBytes { authenticator.update($0) }
        return authenticator.matches(tag: Array(tag))
    }

    /// Deciphers a message whose HMAC has **already been verified** (`isAuthentic`).
    /// Not public: nothing outside the package may get plaintext that was not authenticated.
    package func decipher(encryptionKey: SecretBytes) throws(RNCryptorError) -> [UInt8] {
        let decipher = BodyDecipher(header: header, encryptionKey: encryptionKey)
        var out: [UInt8] = []
        out.reserveCapacity(ciphertextRange.count + Crypto.blockSize)
        bytes[ciphertextRange].withUnsafeBytes { decipher.update($0, into: &out) }
        guard decipher.finalize(into: &out) else {
            Crypto.cleanse(&out)
            throw .badPadding
        }
        return out
    }

    /// Decrypts with a password: HMAC key first, encryption key only when it matches.
    ///
    /// Tries every form of the password that an RNCryptor implementation is known
    /// to have written for this version, in order (one form for an ASCII password).
    /// Versions 0 and 1 throw `legacyVersion` unless `legacyFormats` is `.allowed`;
    /// `iterations` outside 1...`KeyDerivation.maximumIterations` throws `iterationsOutOfRange`.
    package func decrypt(password: SecretBytes, iterations: Int = KeyDerivation.iterations,
                        legacyFormats: LegacyFormats = .refused) throws(RNCryptorError) -> [UInt8] {
        try RNCryptorError.check(iterations: iterations)
        try legacyFormats.check(header)
        guard header.isPasswordBased else { throw .keyBasedMessage }
        for form in header.kdfPasswords(password) where isAuthentic(hmacKey: hmacKey(forKDFPassword: form, iterations: iterations)) {
            return try decipher(encryptionKey: encryptionKey(forKDFPassword: form, iterations: iterations))
        }
        throw .hmacMismatch
    }

    /// Decrypts a key-based message. Version 1 throws `legacyVersion` unless `legacyFormats` is `.allowed`.
    package func decrypt(keys: MessageKeys, legacyFormats: LegacyFormats = .refused) throws(RNCryptorError) -> [UInt8] {
        try legacyFormats.check(header)
        guard !header.isPasswordBased else { throw .passwordBasedMessage }
        guard isAuthentic(hmacKey: keys.hmacKey) else { throw .hmacMismatch }
        return try decipher(encryptionKey: keys.encryptionKey)
    }
}
