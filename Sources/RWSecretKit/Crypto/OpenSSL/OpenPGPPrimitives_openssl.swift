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
        "CAMELLIA-128-CFB", "CAMELLIA-192-CFB", "CAMELLIA-256-CFB", "AES-128-ECB", "AES-192-ECB", "AES-256-ECB",
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
///
/// AES takes another road to the same bytes: OpenSSL's CFB decrypts one block per call to the
/// block function (CRYPTO_cfb128_encrypt), a third of a gigabyte per second, yet CFB decryption
/// needs no chaining: plaintext block i is ciphertext block i XOR E(ciphertext block i - 1), the
/// IV standing before the first. So the keystream of a run of whole blocks is OpenSSL's AES-ECB
/// (pipelined AES-NI) over the IV or last block then the ciphertext shifted by one block, XORed
/// in; partial blocks at either end keep the state across calls. Checked against OpenSSL's CFB.
package final class OpenPGPCFBDecryptor {
    private let cipher: OpaquePointer
    private let context: OpaquePointer
    /// AES: the ECB encryption context of the fast path (nil: OpenSSL's CFB).
    private let ecb: OpaquePointer?
    /// Fast path state: the ciphertext block that feeds the next keystream block (the IV first);
    /// the keystream of the current block and how much of it is used (0: at a block boundary);
    /// the ciphertext of the current block so far.
    private var register = [UInt8](repeating: 0, count: 16)
    private var keystream = [UInt8](repeating: 0, count: 16)
    private var pending = [UInt8](repeating: 0, count: 16)
    private var used = 0

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
        var ecb: OpaquePointer? = nil
        if ok, name.hasPrefix("AES-"), name.hasSuffix("-CFB"), blockIV.count == 16,
           let block = OpenSSLProviders.cipher(String(name.dropLast(3)) + "ECB"), let ecbContext = EVP_CIPHER_CTX_new() {
            let keyed = key.withUnsafeBytes { k in
                EVP_EncryptInit_ex2(ecbContext, block, k.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil) == 1
            }
            if keyed && EVP_CIPHER_CTX_set_padding(ecbContext, 0) == 1 {
                ecb = ecbContext
                register = blockIV
            } else {
                EVP_CIPHER_CTX_free(ecbContext)
            }
        }
        self.ecb = ecb
        ERR_clear_error()
        guard ok else { return nil }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
        if let ecb { EVP_CIPHER_CTX_free(ecb) }
        Crypto.cleanse(&keystream)
        Crypto.cleanse(&pending)
        Crypto.cleanse(&register)
    }

    /// Whether whole blocks are decrypted through ECB (AES), not OpenSSL's one-block-a-call CFB.
    package var isPipelined: Bool { ecb != nil }

    /// Decrypts `input` into `output` (as many bytes; the two must not overlap), going on from
    /// where the last call ended.
    package func decrypt(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= input.count)
        if let ecb { return decryptPipelined(ecb, input, into: output) }
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

    private func encryptBlocks(_ ecb: OpaquePointer, _ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, count: Int) {
        var done = 0
        while done < count {
            let n = min(count - done, 1 << 30)
            var written: Int32 = 0
            let ok = EVP_EncryptUpdate(ecb, output.assumingMemoryBound(to: UInt8.self) + done, &written,
                                       input.assumingMemoryBound(to: UInt8.self) + done, Int32(n))
            precondition(ok == 1 && Int(written) == n, "OpenSSL AES-ECB failed")
            done += n
        }
    }

    private func decryptPipelined(_ ecb: OpaquePointer, _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        guard input.count > 0 else { return }
        let src = input.baseAddress!, dst = output.baseAddress!
        precondition(dst + input.count <= src || src + input.count <= UnsafeRawPointer(dst), "CFB input and output overlap")
        var offset = 0
        // The rest of a block begun by the last call.
        if used > 0 {
            let n = min(16 - used, input.count)
            for i in 0..<n {
                let c = src.load(fromByteOffset: i, as: UInt8.self)
                dst.storeBytes(of: c ^ keystream[used + i], toByteOffset: i, as: UInt8.self)
                pending[used + i] = c
            }
            used += n
            offset = n
            guard used == 16 else { return }
            register = pending
            used = 0
        }
        // Whole blocks: keystream E(register), E(C_0)…E(C_{m-2}) straight into the output, then XOR.
        let blocks = (input.count - offset) / 16
        if blocks > 0 {
            let bytes = blocks * 16
            register.withUnsafeBytes { encryptBlocks(ecb, $0.baseAddress!, into: dst + offset, count: 16) }
            if blocks > 1 { encryptBlocks(ecb, src + offset, into: dst + offset + 16, count: bytes - 16) }
            Self.xor(src + offset, into: dst + offset, count: bytes)
            register.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: src + offset + bytes - 16, byteCount: 16) }
            offset += bytes
        }
        // A partial last block: its keystream kept for the next call.
        let rest = input.count - offset
        if rest > 0 {
            register.withUnsafeBytes { r in keystream.withUnsafeMutableBytes { encryptBlocks(ecb, r.baseAddress!, into: $0.baseAddress!, count: 16) } }
            for i in 0..<rest {
                let c = src.load(fromByteOffset: offset + i, as: UInt8.self)
                dst.storeBytes(of: c ^ keystream[i], toByteOffset: offset + i, as: UInt8.self)
                pending[i] = c
            }
            used = rest
        }
    }

    /// output[i] ^= input[i] for `count` bytes (a multiple of 16).
    private static func xor(_ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, count: Int) {
        var i = 0
        while i < count {
            let a = input.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            let b = output.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            output.storeBytes(of: a ^ b, toByteOffset: i, as: SIMD16<UInt8>.self)
            i += 16
        }
    }

    /// Decrypts `input` (a whole short buffer).
    package func decrypt(_ input: some ContiguousByteStorage) -> SecretBytes {
        input.withUnsafeBytes { raw in
            SecretBytes(count: raw.count) { out in decrypt(raw, into: out) }
        }
    }
}
