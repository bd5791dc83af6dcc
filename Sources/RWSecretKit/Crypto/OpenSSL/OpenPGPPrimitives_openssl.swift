internal import COpenSSL

/// OpenSSL's providers for OpenPGP's older algorithms: CAST5 and Blowfish (and RIPEMD-160 in
/// OpenSSL 3.0 before 3.0.7) live only in the legacy provider, which is loaded on first need.
/// The default provider is loaded with it (loading any provider explicitly stops OpenSSL from
/// falling back to the default one by itself).
enum OpenSSLProviders {
    private static let legacy: Bool = {
        Crypto.initializeOpenSSL()
        _ = OSSL_PROVIDER_load(nil, "default")
        let loaded = OSSL_PROVIDER_load(nil, "legacy") != nil
        ERR_clear_error()
        return loaded
    }()

    /// A fetched algorithm (never freed: fetched once per process, shared by every context).
    private struct Fetched: @unchecked Sendable { let pointer: OpaquePointer? }
    /// OpenPGP's ciphers and digests, fetched together on first use (a fetch costs far more
    /// than the S2K of a quick check, so never one per try).
    private static let ciphers: [String: Fetched] = Dictionary(uniqueKeysWithValues: [
        "DES-EDE3-CFB", "CAST5-CFB", "BF-CFB", "AES-128-CFB", "AES-192-CFB", "AES-256-CFB",
        "CAMELLIA-128-CFB", "CAMELLIA-192-CFB", "CAMELLIA-256-CFB",
    ].map { ($0, Fetched(pointer: fetchCipher($0))) })
    private static let digests: [String: Fetched] = Dictionary(uniqueKeysWithValues: [
        "MD5", "SHA1", "RIPEMD160", "SHA224", "SHA256", "SHA384", "SHA512", "SHA3-256", "SHA3-512",
    ].map { ($0, Fetched(pointer: fetchDigest($0))) })

    /// The cipher `name` (one of OpenPGP's, in CFB mode).
    static func cipher(_ name: String) -> OpaquePointer? { ciphers[name]?.pointer }

    /// The digest `name` (one of OpenPGP's).
    static func digest(_ name: String) -> OpaquePointer? { digests[name]?.pointer }

    /// Fetches the cipher `name`, from the legacy provider when the default one lacks it.
    private static func fetchCipher(_ name: String) -> OpaquePointer? {
        Crypto.initializeOpenSSL()
        if let cipher = EVP_CIPHER_fetch(nil, name, nil) { return cipher }
        ERR_clear_error()
        guard legacy else { return nil }
        defer { ERR_clear_error() }
        return EVP_CIPHER_fetch(nil, name, "provider=legacy")
    }

    /// Fetches the digest `name`, from the legacy provider when the default one lacks it.
    private static func fetchDigest(_ name: String) -> OpaquePointer? {
        Crypto.initializeOpenSSL()
        if let md = EVP_MD_fetch(nil, name, nil) { return md }
        ERR_clear_error()
        guard legacy else { return nil }
        defer { ERR_clear_error() }
        return EVP_MD_fetch(nil, name, "provider=legacy")
    }
}

/// An incremental hash from OpenSSL (`EVP_DigestUpdate`), for OpenPGP's S2K and MDC.
package final class OpenPGPDigest {
    private let md: OpaquePointer
    private let context: OpaquePointer
    /// The digest's size in bytes.
    package let size: Int

    /// The digest OpenSSL calls `name` ("SHA256", "RIPEMD160"…); nil when this OpenSSL has none.
    package init?(_ name: String) {
        guard let md = OpenSSLProviders.digest(name) else { return nil }
        guard let context = EVP_MD_CTX_new() else { fatalError("OpenSSL EVP_MD_CTX_new failed (out of memory)") }
        self.md = md
        self.context = context
        size = Int(EVP_MD_get_size(md))
        reset()
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Starts a new hash.
    package func reset() {
        precondition(EVP_DigestInit_ex(context, md, nil) == 1, "OpenSSL EVP_DigestInit_ex failed")
    }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        precondition(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1, "OpenSSL EVP_DigestUpdate failed")
    }

    package func update(_ bytes: some ContiguousByteStorage) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of everything given since the last reset, into `output` (`size` bytes).
    package func finish(into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= size)
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1 && Int(length) == size,
                     "OpenSSL EVP_DigestFinal_ex failed")
    }

    /// The digest of everything given since the last reset.
    package func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        out.withUnsafeMutableBytes { finish(into: $0) }
        return out
    }
}

/// OpenPGP's CFB mode (full-block feedback, no resynchronisation) from OpenSSL's `*-CFB`
/// ciphers (CFB128 for 16-byte blocks, CFB64 for 8-byte ones), decrypting a stream.
package final class OpenPGPCFBDecryptor {
    private let cipher: OpaquePointer
    private let context: OpaquePointer

    /// `name` is OpenSSL's name of the CFB cipher ("AES-256-CFB", "CAST5-CFB"…); `iv` is all
    /// zeros when nil. Nil when this OpenSSL has no such cipher, or refuses the key.
    package init?(cipher name: String, key: some ContiguousByteStorage, iv: [UInt8]? = nil) {
        guard let cipher = OpenSSLProviders.cipher(name) else { return nil }
        guard let context = EVP_CIPHER_CTX_new() else { fatalError("OpenSSL EVP_CIPHER_CTX_new failed (out of memory)") }
        self.cipher = cipher
        self.context = context
        let blockIV = iv ?? [UInt8](repeating: 0, count: Int(EVP_CIPHER_get_iv_length(cipher)))
        let ok = key.withUnsafeBytes { k in
            Int(EVP_CIPHER_get_key_length(cipher)) == k.count
                && EVP_DecryptInit_ex2(context, cipher, k.baseAddress!.assumingMemoryBound(to: UInt8.self), blockIV, nil) == 1
        }
        ERR_clear_error()
        guard ok else { return nil }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Decrypts `input` into `output` (as many bytes), going on from where the last call ended.
    package func decrypt(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= input.count)
        var done = 0
        while done < input.count {
            let n = min(input.count - done, 1 << 30)
            var written: Int32 = 0
            let ok = EVP_DecryptUpdate(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self) + done, &written,
                                       input.baseAddress!.assumingMemoryBound(to: UInt8.self) + done, Int32(n))
            precondition(ok == 1 && Int(written) == n, "OpenSSL CFB decryption failed")
            done += n
        }
    }

    /// Decrypts `input` (a whole short buffer).
    package func decrypt(_ input: some ContiguousByteStorage) -> SecretBytes {
        input.withUnsafeBytes { raw in
            SecretBytes(count: raw.count) { out in decrypt(raw, into: out) }
        }
    }
}
