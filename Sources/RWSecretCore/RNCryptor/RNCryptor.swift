/// One-shot RNCryptor functions, named as in the RNCryptor libraries.
///
/// The decrypt functions return nothing unless the HMAC verifies.
public enum RNCryptor {
    /// Encrypts `plaintext` as a v3 password-based message.
    public static func encrypt(_ plaintext: some RandomAccessCollection<UInt8>, password: SecretBytes) -> [UInt8] {
        let encryptor = Encryptor(password: password)
        return encryptor.update(plaintext) + encryptor.finalize()
    }

    /// Encrypts a secret `plaintext` as a v3 password-based message.
    package static func encrypt(_ plaintext: SecretBytes, password: SecretBytes) -> [UInt8] {
        let encryptor = Encryptor(password: password)
        return encryptor.update(plaintext) + encryptor.finalize()
    }

    /// Encrypts `plaintext` as a v3 key-based message.
    public static func encrypt(_ plaintext: some RandomAccessCollection<UInt8>, keys: MessageKeys) -> [UInt8] {
        let encryptor = Encryptor(keys: keys)
        return encryptor.update(plaintext) + encryptor.finalize()
    }

    /// Decrypts a password-based message; verifies the HMAC first. Versions 0 and 1
    /// throw `legacyVersion` unless `legacyFormats` is `.allowed` (see `LegacyFormats`).
    /// Blocks for the key derivation; the `async` form does not hold a concurrency thread.
    public static func decrypt(_ message: some RandomAccessCollection<UInt8>, password: SecretBytes,
                               legacyFormats: LegacyFormats = .refused) throws(RNCryptorError) -> [UInt8] {
        try Message(Array(message)).decrypt(password: password, legacyFormats: legacyFormats)
    }

    /// Decrypts a key-based message; verifies the HMAC first. Version 1 throws
    /// `legacyVersion` unless `legacyFormats` is `.allowed` (see `LegacyFormats`).
    public static func decrypt(_ message: some RandomAccessCollection<UInt8>, keys: MessageKeys,
                               legacyFormats: LegacyFormats = .refused) throws(RNCryptorError) -> [UInt8] {
        try Message(Array(message)).decrypt(keys: keys, legacyFormats: legacyFormats)
    }
}

extension RNCryptor {
    /// Starts the one-time set-up of the primitives RNCryptor messages use (OpenSSL's
    /// initialisation, AES-256-CBC, HMAC-SHA256, and the choice of PBKDF2 kernel) on a thread
    /// of its own, and returns at once.
    ///
    /// Optional: everything happens on first use anyway. A program that is about to decrypt
    /// can call it first thing, so that the set-up overlaps its own start-up work (parsing
    /// arguments, opening files). Safe to call from any thread, any number of times.
    public static func prepareInBackground() {
        Crypto.prepareInBackground()
    }
}

extension RNCryptor {
    /// Base64, as RNCryptor messages travel in text (standard or URL-safe alphabet).
    public enum Base64 {
        /// The standard, padded base64 of `bytes`.
        public static func encode(_ bytes: some Collection<UInt8>) -> String { RWSecretCore.Base64.encode(bytes) }

        /// The bytes of base64 `text` (standard or URL-safe, padded or not); nil when it is not base64.
        public static func decodeLenient(_ text: some Collection<UInt8>) -> [UInt8]? { RWSecretCore.Base64.decodeLenient(text) }
    }
}
