/// RNCryptor's key derivation: PBKDF2-HMAC-SHA1, 10,000 iterations, 32-byte keys.
public enum KeyDerivation {
    /// The iteration count every RNCryptor version uses.
    public static let iterations = 10_000

    /// Derives one 32-byte key from `password` and `salt`.
    public static func key(password: SecretBytes, salt: some ContiguousBytes) -> SecretBytes {
        password.withUnsafeBytes { p in
            salt.withUnsafeBytes { s in
                Crypto.opensslPBKDF2SHA1(password: p, salt: s, iterations: iterations, keyLength: Crypto.keySize)
            }
        }
    }

    /// Derives one key for each (password, salt) pair, in order.
    ///
    /// Independent derivations may be computed together; the result is the same as
    /// calling `key(password:salt:)` for each pair.
    public static func keys(_ requests: [(password: SecretBytes, salt: [UInt8])]) -> [SecretBytes] {
        requests.map { key(password: $0.password, salt: $0.salt) }
    }
}
