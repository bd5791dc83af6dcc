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

    /// Does OpenSSL's one-time set-up (provider initialisation, the HMAC and
    /// AES-256-CBC fetches: about 3 ms per process) and the KDF's choice of kernel.
    ///
    /// Everything here happens lazily on first use anyway; a caller that knows it
    /// is about to decrypt can call this on another thread to overlap the set-up
    /// with its own start-up work. Safe to call from any thread, any number of times.
    public static func prepare() {
        Authenticator.prepare()
        Cipher.prepare()
        _ = KeyDerivation.activeImplementation
    }
}
