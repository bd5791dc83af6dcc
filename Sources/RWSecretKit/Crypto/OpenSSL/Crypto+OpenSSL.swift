internal import COpenSSL

extension Crypto {
    /// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
    public static func randomBytes(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let ok = bytes.withUnsafeMutableBytes { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count)) }
        // RAND_bytes fails only when the system has no entropy source at all;
        // continuing with zero bytes would be silently insecure.
        precondition(ok == 1, "OpenSSL RAND_bytes failed: no secure randomness available")
        return bytes
    }

    /// Wipes `buffer` in a way the compiler cannot optimise away (`OPENSSL_cleanse`).
    public static func cleanse(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        OPENSSL_cleanse(base, buffer.count)
    }

    /// Wipes an array in place.
    public static func cleanse(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { cleanse($0) }
    }

    /// Compares two buffers in time that depends only on their length (`CRYPTO_memcmp`).
    public static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 0 else { return true }
        return CRYPTO_memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    /// Compares two byte collections in constant time.
    public static func constantTimeEqual<A: ContiguousBytes, B: ContiguousBytes>(_ a: A, _ b: B) -> Bool {
        a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in constantTimeEqual(pa, pb) } }
    }

    /// PBKDF2-HMAC-SHA1 computed by OpenSSL's own `PKCS5_PBKDF2_HMAC` (the reference the fast kernels are checked against).
    public static func opensslPBKDF2SHA1(password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, iterations: Int, keyLength: Int) -> SecretBytes {
        SecretBytes(count: keyLength) { out in
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
public protocol ContiguousBytes {
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}
extension Array: ContiguousBytes where Element == UInt8 {}
extension ArraySlice: ContiguousBytes where Element == UInt8 {}
extension SecretBytes: ContiguousBytes {}
