/// Deciphers the ciphertext of a message whose HMAC has **already been verified**
/// (see `StreamAuthenticator`), in bounded memory.
///
/// Feed it the ciphertext only (no header, no tag). Because the padding lives in
/// the last block, `paddingIsValid` can check it up front, so a caller can know
/// the whole plaintext will come out before writing its first byte.
public final class StreamDecipher {
    private let cipher: Cipher

    public init(header: MessageHeader, encryptionKey: SecretBytes) {
        cipher = Cipher(.decrypt, key: encryptionKey, iv: header.iv)
    }

    /// Deciphers the next ciphertext bytes.
    public func update(_ ciphertext: UnsafeRawBufferPointer, into plaintext: inout [UInt8]) {
        cipher.update(ciphertext, into: &plaintext)
    }

    /// Deciphers the last block and strips the padding.
    public func finalize(into plaintext: inout [UInt8]) throws(RNCryptorError) {
        guard cipher.finalize(into: &plaintext) else { throw .badPadding }
    }

    /// Whether the message's last block carries valid PKCS#7 padding.
    /// `previousBlock` is the ciphertext block before it (the IV for a one-block message).
    public static func paddingIsValid(previousBlock: [UInt8], lastBlock: [UInt8], encryptionKey: SecretBytes) -> Bool {
        let cipher = Cipher(.decrypt, key: encryptionKey, iv: previousBlock)
        var out: [UInt8] = []
        lastBlock.withUnsafeBytes { cipher.update($0, into: &out) }
        let valid = cipher.finalize(into: &out)
        Crypto.cleanse(&out)
        return valid
    }
}
