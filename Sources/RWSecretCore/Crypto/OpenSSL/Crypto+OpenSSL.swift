internal import COpenSSL
internal import Synchronization

/// How OpenSSL starts in a program in which this library is OpenSSL's only user.
///
/// OpenSSL 3 keeps two tables of algorithm names: the name map its providers fill, through
/// which this library fetches every cipher, digest, MAC and key type, and the legacy table
/// that `EVP_get_cipherbyname` and `EVP_get_digestbyname` read. By default it fills the
/// legacy table with every cipher and digest it has, and on the first fetch copies it into the
/// name map: about 3 M instructions, 0.4 ms of every process that uses OpenSSL at all, a
/// tenth of a whole `rwsecret decrypt` of one small message.
///
/// ```swift
/// OpenSSLStart.withoutLegacyNames()  // first thing in main
/// ```
public enum OpenSSLStart {
    /// Starts OpenSSL, when this library first needs it, without the legacy name table.
    ///
    /// The choice is the whole process's: other code that looks a cipher or digest up by its
    /// legacy name (`EVP_get_cipherbyname("aes-256-cbc")`) no longer finds it. OpenSSL's PEM
    /// reader is such code, so the library adds the names a PEM key's `DEK-Info` line gives
    /// before it reads one. Call it before anything in the process uses OpenSSL; once OpenSSL
    /// has fetched an algorithm, it changes nothing. The `rwsecret` tool calls it first thing.
    public static func withoutLegacyNames() {
        Crypto.legacyNames.store(false, ordering: .relaxed)
    }
}

extension Crypto {
    /// False once `OpenSSLStart.withoutLegacyNames()` was called: read by `library`.
    static let legacyNames = Atomic<Bool>(true)

    /// OpenSSL's library-wide set-up, run before any other OpenSSL call here.
    ///
    /// `OPENSSL_INIT_NO_ATEXIT`: OpenSSL would otherwise free its provider and
    /// algorithm tables in an `atexit` handler — about 0.3 ms of every run spent
    /// tidying memory the kernel is about to reclaim. Keys never live in those
    /// tables; contexts that held key material are wiped when they are freed.
    ///
    /// `OPENSSL_INIT_NO_LOAD_CONFIG`: the system's `openssl.cnf` (or `OPENSSL_CONF`) is not
    /// read. Parsing it cost ~1.8 M instructions of every run (a third of OpenSSL's set-up),
    /// and nothing in it applies here: every algorithm is fixed by the RNCryptor format
    /// (AES-256-CBC, HMAC-SHA256/SHA1, SHA-1 for PBKDF2) and comes from the default
    /// provider, which is loaded as OpenSSL's fallback when no configuration loads one.
    ///
    /// `OPENSSL_INIT_NO_ADD_ALL_CIPHERS` and `_DIGESTS`, when the program chose so
    /// (`OpenSSLStart.withoutLegacyNames()`): no legacy name table (`addPEMCipherNames()`).
    private static let library: Void = {
        var options = UInt64(OPENSSL_INIT_NO_ATEXIT) | UInt64(OPENSSL_INIT_NO_LOAD_CONFIG)
        if !legacyNames.load(ordering: .relaxed) {
            options |= UInt64(OPENSSL_INIT_NO_ADD_ALL_CIPHERS) | UInt64(OPENSSL_INIT_NO_ADD_ALL_DIGESTS)
        }
        precondition(OPENSSL_init_crypto(options, nil) == 1, "OpenSSL could not be initialised")
    }()

    /// Makes sure `library` has run (cheap after the first call).
    package static func initializeOpenSSL() { library }

    /// The ciphers a traditional PEM key's `DEK-Info` line may name (`AES-128-CBC` from
    /// `ssh-keygen -m PEM`, `DES-EDE3-CBC` from older tools, `openssl rsa -traditional -aes256`
    /// and the like), added to the legacy name table that OpenSSL's PEM reader looks them up in
    /// (`EVP_get_cipherbyname`): without `OpenSSLStart.withoutLegacyNames()` OpenSSL has added
    /// them already, and adding one again changes nothing. Those of the legacy provider
    /// (DES, Blowfish, CAST5, SEED) open only when it is loaded, as before. (Debian builds no IDEA.)
    private static let pemCipherNames: Void = {
        initializeOpenSSL()
        let ciphers: [OpaquePointer?] = [
            EVP_aes_128_cbc(), EVP_aes_192_cbc(), EVP_aes_256_cbc(), EVP_des_ede3_cbc(), EVP_des_cbc(),
            EVP_camellia_128_cbc(), EVP_camellia_192_cbc(), EVP_camellia_256_cbc(),
            EVP_aria_128_cbc(), EVP_aria_192_cbc(), EVP_aria_256_cbc(),
            EVP_seed_cbc(), EVP_bf_cbc(), EVP_cast5_cbc(),
        ]
        for cipher in ciphers { _ = EVP_add_cipher(cipher) }
    }()

    /// Makes sure the names of `pemCipherNames` are there: before OpenSSL's PEM reader runs.
    package static func addPEMCipherNames() { pemCipherNames }

    /// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
    package static func randomBytes(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        initializeOpenSSL()
        let ok = bytes.withUnsafeMutableBytes { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count)) }
        // RAND_bytes fails only when the system has no entropy source at all;
        // continuing with zero bytes would be silently insecure.
        precondition(ok == 1, "OpenSSL RAND_bytes failed: no secure randomness available")
        return bytes
    }

    /// Wipes `buffer` in a way the compiler cannot optimise away (`OPENSSL_cleanse`).
    package static func cleanse(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        OPENSSL_cleanse(base, buffer.count)
    }

    /// Wipes an array in place. Its storage must not be shared: `withUnsafeMutableBytes` on
    /// a shared array copies it first (copy-on-write), and the copy is wiped, not the original
    /// (see `cleanseShared`).
    package static func cleanse(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { cleanse($0) }
    }

    /// Wipes the storage of an array that no holder will read again, in place, also when
    /// other copies of the array share it (no copy-on-write): for a plaintext that a result
    /// carries from thread to thread, once written.
    package static func cleanseShared(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return }
            OPENSSL_cleanse(UnsafeMutableRawPointer(mutating: base), buffer.count)
        }
    }

    /// Compares two buffers in time that depends only on their length (`CRYPTO_memcmp`).
    package static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 0 else { return true }
        return CRYPTO_memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    /// Compares two byte collections in constant time.
    package static func constantTimeEqual<A: ContiguousByteStorage, B: ContiguousByteStorage>(_ a: A, _ b: B) -> Bool {
        a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in constantTimeEqual(pa, pb) } }
    }

    /// PBKDF2-HMAC-SHA1 computed by OpenSSL's own `PKCS5_PBKDF2_HMAC` (the reference the fast kernels are checked against).
    package static func opensslPBKDF2SHA1(password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, iterations: Int, keyLength: Int) -> SecretBytes {
        initializeOpenSSL()
        return SecretBytes(count: keyLength) { out in
            let emptyByte: UInt8 = 0
            let ok = withUnsafePointer(to: emptyByte) { empty in
                PKCS5_PBKDF2_HMAC(
                    password.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) } ?? UnsafeRawPointer(empty).assumingMemoryBound(to: CChar.self),
                    Int32(password.count),
                    salt.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? empty,
                    Int32(salt.count),
                    Int32(iterations), EVP_sha1(), Int32(keyLength),
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            precondition(ok == 1, "OpenSSL PKCS5_PBKDF2_HMAC failed")
        }
    }
}

/// Something whose bytes can be read contiguously (arrays, slices, secrets).
package protocol ContiguousByteStorage {
    /// Calls `body` with the bytes, contiguous in memory, valid only during the call.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}
extension Array: ContiguousByteStorage where Element == UInt8 {}

/// Any collection of bytes seen as `ContiguousByteStorage`: the public API takes
/// `some RandomAccessCollection<UInt8>` (an array, a slice, Foundation's `Data`), and a
/// collection without contiguous storage is copied once.
package struct ContiguousBytes<Bytes: RandomAccessCollection<UInt8>>: ContiguousByteStorage {
    package let bytes: Bytes

    package init(_ bytes: Bytes) { self.bytes = bytes }

    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let result = try bytes.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) { return result }
        return try Array(bytes).withUnsafeBytes(body)
    }
}
extension ArraySlice: ContiguousByteStorage where Element == UInt8 {}
extension SecretBytes: ContiguousByteStorage {}
