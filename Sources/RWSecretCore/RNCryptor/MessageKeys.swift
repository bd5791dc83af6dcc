/// The two 32-byte keys of a key-based message: AES-256 encryption key and HMAC-SHA256 key.
public struct MessageKeys: Sendable {
    /// The AES-256 key.
    package let encryptionKey: SecretBytes
    /// The HMAC-SHA256 key.
    package let hmacKey: SecretBytes

    /// Keys of exactly 32 bytes each.
    ///
    /// - Throws: `RNCryptorError.invalidKeySize` with the size of the first key that is not 32 bytes.
    public init(encryptionKey: SecretBytes, hmacKey: SecretBytes) throws(RNCryptorError) {
        for key in [encryptionKey, hmacKey] where key.count != Crypto.keySize { throw .invalidKeySize(key.count) }
        self.encryptionKey = encryptionKey
        self.hmacKey = hmacKey
    }

    /// 64 bytes: the encryption key then the HMAC key.
    public init?(concatenated bytes: SecretBytes) {
        guard bytes.count == 2 * Crypto.keySize else { return nil }
        try? self.init(encryptionKey: bytes.slice(0..<32), hmacKey: bytes.slice(32..<64))
    }
}
