/// A whole RNCryptor message in memory, structurally checked once.
///
/// Structural problems (too short, bad length, unknown version or options)
/// are found by `init`, before any password is tried: no password can fix them.
/// Then each candidate costs one key derivation per form of the password
/// (`MessageHeader.kdfPasswords(_:)`: one for ASCII): `hmacKey(for:)` and
/// `isAuthentic(hmacKey:)` decide, and only the form that matches pays for the
/// encryption key.
///
/// Version 0 authenticates the ciphertext only (HMAC-SHA1, padded to 32 bytes
/// with zeros, which are checked too): its header — salts and counter IV — is
/// not covered, and a changed IV changes the plaintext without detection.
public struct Message: Sendable {
    /// The raw message.
    public let bytes: [UInt8]
    /// Its parsed header.
    public let header: MessageHeader

    /// Parses and structurally validates `bytes`.
    public init(_ bytes: [UInt8]) throws(RNCryptorError) {
        header = try MessageHeader(parsing: bytes)
        try header.validate(messageLength: bytes.count)
        self.bytes = bytes
    }

    private var ciphertextRange: Range<Int> { header.length..<(bytes.count - Crypto.tagSize) }
    private var tag: ArraySlice<UInt8> { bytes[(bytes.count - Crypto.tagSize)...] }

    /// The HMAC key a PBKDF2 input gives for this message (password-based only).
    ///
    /// `kdfPassword` is one of `header.kdfPasswords(password)`, not the password as typed.
    public func hmacKey(forKDFPassword kdfPassword: SecretBytes, iterations: Int = KeyDerivation.iterations) -> SecretBytes {
        guard let salts = header.salts else { preconditionFailure("hmacKey(for:) on a key-based message") }
        return KeyDerivation.key(password: kdfPassword, salt: salts.hmac, iterations: iterations)
    }

    /// The encryption key a PBKDF2 input gives for this message (password-based only).
    public func encryptionKey(forKDFPassword kdfPassword: SecretBytes, iterations: Int = KeyDerivation.iterations) -> SecretBytes {
        guard let salts = header.salts else { preconditionFailure("encryptionKey(for:) on a key-based message") }
        return KeyDerivation.key(password: kdfPassword, salt: salts.encryption, iterations: iterations)
    }

    /// The HMAC key a password gives for this message in the reference implementation's form.
    public func hmacKey(for password: SecretBytes) -> SecretBytes {
        hmacKey(forKDFPassword: header.kdfPassword(password))
    }

    /// The encryption key a password gives for this message in the reference implementation's form.
    public func encryptionKey(for password: SecretBytes) -> SecretBytes {
        encryptionKey(forKDFPassword: header.kdfPassword(password))
    }

    /// The 32-byte HMAC this message should carry under `hmacKey`: HMAC-SHA256
    /// (v0: HMAC-SHA1 and 12 zero bytes).
    public func expectedTag(hmacKey: SecretBytes) -> [UInt8] {
        if header.isCounterMode {
            let authenticator = SHA1Authenticator(key: hmacKey)
            bytes[ciphertextRange].withUnsafeBytes { authenticator.update($0) }
            return authenticator.finalize() + [UInt8](repeating: 0, count: Crypto.tagSize - SHA1Authenticator.tagSize)
        }
        let start = header.hmacCoversHeader ? 0 : header.length
        return Authenticator.tag(key: hmacKey, data: bytes[start..<ciphertextRange.upperBound])
    }

    /// Whether the message's HMAC matches under `hmacKey` (compared in constant time).
    public func isAuthentic(hmacKey: SecretBytes) -> Bool {
        Crypto.constantTimeEqual(expectedTag(hmacKey: hmacKey), tag)
    }

    /// Deciphers a message whose HMAC has already been verified.
    public func decipher(encryptionKey: SecretBytes) throws(RNCryptorError) -> [UInt8] {
        if header.isCounterMode {
            var out: [UInt8] = []
            let cipher = LittleEndianCounterCipher(key: encryptionKey, iv: header.iv)
            bytes[ciphertextRange].withUnsafeBytes { cipher.update($0, into: &out) }
            return out
        }
        let cipher = Cipher(.decrypt, key: encryptionKey, iv: header.iv)
        var out: [UInt8] = []
        out.reserveCapacity(ciphertextRange.count)
        bytes[ciphertextRange].withUnsafeBytes { cipher.update($0, into: &out) }
        guard cipher.finalize(into: &out) else {
            Crypto.cleanse(&out)
            throw .badPadding
        }
        return out
    }

    /// Decrypts with a password: HMAC key first, encryption key only when it matches.
    ///
    /// Tries every form of the password that an RNCryptor implementation is known
    /// to have written for this version (`MessageHeader.kdfPasswords(_:)`), in order.
    public func decrypt(password: SecretBytes, iterations: Int = KeyDerivation.iterations) throws(RNCryptorError) -> [UInt8] {
        guard header.isPasswordBased else { throw .keyBasedMessage }
        for form in header.kdfPasswords(password) where isAuthentic(hmacKey: hmacKey(forKDFPassword: form, iterations: iterations)) {
            return try decipher(encryptionKey: encryptionKey(forKDFPassword: form, iterations: iterations))
        }
        throw .hmacMismatch
    }

    /// Decrypts a key-based message.
    public func decrypt(keys: MessageKeys) throws(RNCryptorError) -> [UInt8] {
        guard !header.isPasswordBased else { throw .passwordBasedMessage }
        guard isAuthentic(hmacKey: keys.hmacKey) else { throw .hmacMismatch }
        return try decipher(encryptionKey: keys.encryptionKey)
    }
}
