internal import COpenSSL
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// An incremental HMAC-SHA256 over OpenSSL's `EVP_MAC`; one instance per key and message.
final class Authenticator {
    // Fetched once per process: the fetch is the costly part and the EVP_MAC is shareable.
    nonisolated(unsafe) private static let hmac: OpaquePointer = {
        Crypto.initializeOpenSSL()
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { fatalError("OpenSSL has no HMAC implementation") }
        return mac
    }()
    nonisolated(unsafe) private static let digestName: UnsafeMutablePointer<CChar> = strdup("SHA256")!

    private let context: OpaquePointer

    /// Performs the one-time fetch now (see `Crypto.prepare()`).
    static func prepare() { _ = hmac }

    /// Starts an HMAC-SHA256 keyed with `key`.
    init(key: some ContiguousByteStorage) {
        guard let ctx = EVP_MAC_CTX_new(Self.hmac) else { fatalError("OpenSSL EVP_MAC_CTX_new failed (out of memory)") }
        context = ctx
        var params = [
            OSSL_PARAM_construct_utf8_string("digest", Self.digestName, 0),
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

    /// The 32-byte tag. The authenticator cannot be used afterwards.
    func finalize() -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: Crypto.tagSize)
        var written = 0
        let ok = tag.withUnsafeMutableBytes { EVP_MAC_final(context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, $0.count) }
        precondition(ok == 1 && written == Crypto.tagSize, "OpenSSL EVP_MAC_final failed")
        return tag
    }

    /// The HMAC-SHA256 of `data` under `key`, in one call.
    static func tag(key: some ContiguousByteStorage, data: some ContiguousByteStorage) -> [UInt8] {
        let auth = Authenticator(key: key)
        auth.update(data)
        return auth.finalize()
    }
}
