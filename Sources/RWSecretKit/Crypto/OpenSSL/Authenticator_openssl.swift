internal import COpenSSL
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// An incremental HMAC over OpenSSL's `EVP_MAC`, SHA-256 (or SHA-1 for RNCryptor v0);
/// one instance per key and message.
final class Authenticator {
    /// The hash under the HMAC.
    enum Digest {
        case sha256, sha1
        /// The tag's size in bytes.
        var tagSize: Int { self == .sha256 ? 32 : 20 }
        fileprivate var name: UnsafeMutablePointer<CChar> { self == .sha256 ? Authenticator.sha256Name : Authenticator.sha1Name }
    }

    // Fetched once per process: the fetch is the costly part and the EVP_MAC is shareable.
    nonisolated(unsafe) private static let hmac: OpaquePointer = {
        Crypto.initializeOpenSSL()
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { fatalError("OpenSSL has no HMAC implementation") }
        return mac
    }()
    nonisolated(unsafe) fileprivate static let sha256Name: UnsafeMutablePointer<CChar> = strdup("SHA256")!
    nonisolated(unsafe) fileprivate static let sha1Name: UnsafeMutablePointer<CChar> = strdup("SHA1")!
    // The parameter's key must outlive the call too: OpenSSL reads it in EVP_MAC_init, after a
    // Swift string literal's temporary C string is gone (AddressSanitizer: use after free).
    nonisolated(unsafe) private static let digestKey: UnsafeMutablePointer<CChar> = strdup("digest")!

    private let context: OpaquePointer
    private let tagSize: Int

    /// Performs the one-time fetch now (see `Crypto.prepare()`).
    static func prepare() { _ = hmac }

    /// Starts an HMAC (SHA-256 unless told otherwise) keyed with `key`.
    init(key: some ContiguousByteStorage, digest: Digest = .sha256) {
        guard let ctx = EVP_MAC_CTX_new(Self.hmac) else { fatalError("OpenSSL EVP_MAC_CTX_new failed (out of memory)") }
        context = ctx
        tagSize = digest.tagSize
        var params = [
            OSSL_PARAM_construct_utf8_string(Self.digestKey, digest.name, 0),
            OSSL_PARAM_construct_end(),
        ]
        let ok = key.withUnsafeBytes { raw in
            EVP_MAC_init(ctx, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &params)
        }
        precondition(ok == 1, "OpenSSL EVP_MAC_init failed")
    }

    deinit { EVP_MAC_CTX_free(context) }

    /// Adds `bytes` to the authenticated data.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let ok = EVP_MAC_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        precondition(ok == 1, "OpenSSL EVP_MAC_update failed")
    }

    /// Adds `bytes` to the authenticated data.
    func update(_ bytes: some ContiguousByteStorage) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The tag (32 bytes for SHA-256, 20 for SHA-1). The authenticator cannot be used afterwards.
    func finalize() -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: tagSize)
        var written = 0
        let ok = tag.withUnsafeMutableBytes { EVP_MAC_final(context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, $0.count) }
        precondition(ok == 1 && written == tagSize, "OpenSSL EVP_MAC_final failed")
        return tag
    }

    /// The HMAC-SHA256 of `data` under `key`, in one call.
    static func tag(key: some ContiguousByteStorage, data: some ContiguousByteStorage) -> [UInt8] {
        let auth = Authenticator(key: key)
        auth.update(data)
        return auth.finalize()
    }
}
