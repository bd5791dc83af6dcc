/// The cryptographic primitives rwsecret uses, as a Swift API with no C in sight.
///
/// Every function here is implemented in `Crypto/OpenSSL/`, the only files that
/// import OpenSSL's libcrypto.
public enum Crypto {
    /// RNCryptor's key size for AES-256 and HMAC-SHA256 keys.
    public static let keySize = 32
    /// The AES block size and IV size.
    public static let blockSize = 16
    /// The size of an HMAC-SHA256 tag.
    public static let tagSize = 32
}
