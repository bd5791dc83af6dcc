#if canImport(Glibc)
internal import Glibc
#else
internal import Dispatch
#endif

/// The cryptographic primitives rwsecret uses, as a Swift API with no C in sight.
///
/// Every function here is implemented in `Crypto/OpenSSL/`, the only files that
/// import OpenSSL's libcrypto.
package enum Crypto {
    /// RNCryptor's key size for AES-256 and HMAC-SHA256 keys.
    package static let keySize = 32
    /// The AES block size and IV size.
    package static let blockSize = 16
    /// The size of an HMAC-SHA256 tag.
    package static let tagSize = 32

    /// Does OpenSSL's one-time set-up (library initialisation, the AES-256-CBC and SHA-256
    /// methods: no provider fetch, about 0.2 M instructions) and the KDF's choice of kernel.
    ///
    /// Everything here happens lazily on first use anyway; a caller that knows it
    /// is about to decrypt can call this on another thread to overlap the set-up
    /// with its own start-up work. Safe to call from any thread, any number of times.
    package static func prepare() {
        Authenticator.prepare()
        Cipher.prepare()
        _ = KeyDerivation.activeImplementation
    }

    /// Starts `prepare()` on a thread of its own and returns at once.
    ///
    /// A plain detached thread: it is running within microseconds, whereas the
    /// first Dispatch worker of a process was measured starting about 2 ms late
    /// while the main thread was busy parsing arguments.
    package static func prepareInBackground() {
        #if canImport(Glibc)
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return }
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        // If no thread can be started, nothing is lost: everything happens lazily on first use.
        _ = pthread_create(&thread, &attributes, { _ in Crypto.prepare(); return nil }, nil)
        #else
        DispatchQueue.global().async { prepare() }
        #endif
    }
}
