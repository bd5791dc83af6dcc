/// One-shot RNCryptor functions, named as in the RNCryptor libraries.
///
/// The decrypt functions return nothing unless the HMAC verifies.
public enum RNCryptor {
    /// Encrypts `plaintext` as a v3 password-based message.
    public static func encrypt(_ plaintext: some ContiguousByteStorage, password: SecretBytes) -> [UInt8] {
        let encryptor = Encryptor(password: password)
        return encryptor.update(plaintext) + encryptor.finalize()
    }

    /// Encrypts `plaintext` as a v3 key-based message.
    public static func encrypt(_ plaintext: some ContiguousByteStorage, keys: MessageKeys) -> [UInt8] {
        let encryptor = Encryptor(keys: keys)
        return encryptor.update(plaintext) + encryptor.finalize()
    }

    /// Decrypts a password-based message; verifies the HMAC first. Versions 0 and 1
    /// throw `legacyVersion` unless `legacyFormats` is `.allowed` (see `LegacyFormats`).
    public static func decrypt(_ message: [UInt8], password: SecretBytes, legacyFormats: LegacyFormats = .refused) throws(RNCryptorError) -> [UInt8] {
        try Message(message).decrypt(password: password, legacyFormats: legacyFormats)
    }

    /// Decrypts a key-based message; verifies the HMAC first. Version 1 throws
    /// `legacyVersion` unless `legacyFormats` is `.allowed` (see `LegacyFormats`).
    public static func decrypt(_ message: [UInt8], keys: MessageKeys, legacyFormats: LegacyFormats = .refused) throws(RNCryptorError) -> [UInt8] {
        try Message(message).decrypt(keys: keys, legacyFormats: legacyFormats)
    }
}
