/// A whole RNCryptor message in memory, structurally checked once.
///
/// Structural problems (too short, bad length, unknown version or options)
/// are found by `init`, before any password is tried: no password can fix them.
/// Then each candidate costs one key derivation: `hmacKey(for:)` and
/// `isAuthentic(hmacKey:)` decide, and only the password that matches pays for
/// the encryption key.
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

    /// The HMAC key a candidate password gives for this message (password-based only).
    public func hmacKey(for password: SecretBytes) -> SecretBytes {
        guard let salts = header.salts else { preconditionFailure("hmacKey(for:) on a key-based message") }
        return KeyDerivation.key(password: header.kdfPassword(password), salt: salts.hmac)
    }

    /// The encryption key a password gives for this message (password-based only).
    public func encryptionKey(for password: SecretBytes) -> SecretBytes {
        guard let salts = header.salts else { preconditionFailure("encryptionKey(for:) on a key-based message") }
        return KeyDerivation.key(password: header.kdfPassword(password), salt: salts.encryption)
    }

    /// The HMAC-SHA256 this message should carry under `hmacKey`.
    public func expectedTag(hmacKey: SecretBytes) -> [UInt8] {
        let start = header.hmacCoversHeader ? 0 : header.length
        return Authenticator.tag(key: hmacKey, data: bytes[start..<ciphertextRange.upperBound])
    }

    /// Whether the message's HMAC matches under `hmacKey` (compared in constant time).
    public func isAuthentic(hmacKey: SecretBytes) -> Bool {
        Crypto.constantTimeEqual(expectedTag(hmacKey: hmacKey), tag)
    }

    /// Deciphers a message whose HMAC has already been verified.
    public func decipher(encryptionKey: SecretBytes) throws(RNCryptorError) -> [UInt8] {
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
    public func decrypt(password: SecretBytes) throws(RNCryptorError) -> [UInt8] {
        guard header.isPasswordBased else { throw .keyBasedMessage }
        guard isAuthentic(hmacKey: hmacKey(for: password)) else { throw .hmacMismatch }
        return try decipher(encryptionKey: encryptionKey(for: password))
    }

    /// Decrypts a key-based message.
    public func decrypt(keys: MessageKeys) throws(RNCryptorError) -> [UInt8] {
        guard !header.isPasswordBased else { throw .passwordBasedMessage }
        guard isAuthentic(hmacKey: keys.hmacKey) else { throw .hmacMismatch }
        return try decipher(encryptionKey: keys.encryptionKey)
    }
}
