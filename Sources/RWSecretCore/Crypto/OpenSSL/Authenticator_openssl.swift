internal import COpenSSL
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// An incremental HMAC over OpenSSL's `HMAC_CTX`, SHA-256 (or SHA-1 for RNCryptor v0);
/// one instance per key and message.
package final class Authenticator {
    /// The hash under the HMAC.
    enum Digest {
        case sha256, sha1
        /// The tag's size in bytes.
        var tagSize: Int { self == .sha256 ? 32 : 20 }
        fileprivate var method: OpaquePointer { self == .sha256 ? Authenticator.sha256 : Authenticator.sha1 }
    }

    // Made once per process and shared (read-only) by every context: OpenSSL's built-in
    // SHA-256 and SHA-1 through their legacy method tables (no provider fetch; see
    // rws_legacy_digest in COpenSSL's shim.h), or fetched where the build has none.
    nonisolated(unsafe) private static let sha256: OpaquePointer = {
        Crypto.initializeOpenSSL()
        guard let md = rws_legacy_sha256() ?? EVP_MD_fetch(nil, "SHA256", nil) else { fatalError("OpenSSL has no SHA-256") }
        return md
    }()
    nonisolated(unsafe) private static let sha1: OpaquePointer = {
        Crypto.initializeOpenSSL()
        guard let md = rws_legacy_sha1() ?? EVP_MD_fetch(nil, "SHA1", nil) else { fatalError("OpenSSL has no SHA-1") }
        return md
    }()

    private let context: OpaquePointer
    private let tagSize: Int

    /// Makes the SHA-256 method now (see `Crypto.prepare()`).
    static func prepare() { _ = sha256 }

    /// Starts an HMAC (SHA-256 unless told otherwise) keyed with `key`.
    init(key: some ContiguousByteStorage, digest: Digest = .sha256) {
        guard let ctx = HMAC_CTX_new() else { fatalError("OpenSSL HMAC_CTX_new failed (out of memory)") }
        context = ctx
        tagSize = digest.tagSize
        let ok = key.withUnsafeBytes { raw in
            // A zero-length key still needs a non-NULL pointer: NULL means "keep the old key".
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { empty in
                HMAC_Init_ex(ctx, raw.count > 0 ? raw.baseAddress! : UnsafeRawPointer(empty.baseAddress!),
                             Int32(raw.count), digest.method, nil)
            }
        }
        precondition(ok == 1, "OpenSSL HMAC_Init_ex failed")
    }

    deinit { HMAC_CTX_free(context) }

    /// Adds `bytes` to the authenticated data.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let ok = HMAC_Update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        precondition(ok == 1, "OpenSSL HMAC_Update failed")
    }

    /// Adds `bytes` to the authenticated data.
    func update(_ bytes: some ContiguousByteStorage) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The tag (32 bytes for SHA-256, 20 for SHA-1). The authenticator cannot be used afterwards.
    func finalize() -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: tagSize)
        var written: UInt32 = 0
        let ok = tag.withUnsafeMutableBytes { HMAC_Final(context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &written) }
        precondition(ok == 1 && Int(written) == tagSize, "OpenSSL HMAC_Final failed")
        return tag
    }

    /// The HMAC-SHA256 of `data` under `key`, in one call.
    package static func tag(key: some ContiguousByteStorage, data: some ContiguousByteStorage) -> [UInt8] {
        let auth = Authenticator(key: key)
        auth.update(data)
        return auth.finalize()
    }
}
