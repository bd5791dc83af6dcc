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

    /// Decrypts a password-based message of any version; verifies the HMAC first.
    public static func decrypt(_ message: [UInt8], password: SecretBytes) throws(RNCryptorError) -> [UInt8] {
        try Message(message).decrypt(password: password)
    }

    /// Decrypts a key-based message; verifies the HMAC first.
    public static func decrypt(_ message: [UInt8], keys: MessageKeys) throws(RNCryptorError) -> [UInt8] {
        try Message(message).decrypt(keys: keys)
    }
}
