internal import COpenSSL

/// The symmetric primitives of writing OpenPGP messages (`encrypt --to-key`), OpenSSL's: CFB
/// encryption of SEIPD v1 (OpenPGP's CFB with a zero IV is plain CFB, RFC 9580 5.13.1) and
/// the AEAD sealing of SEIPD v2 chunks.
package final class OpenPGPCFBEncryptor {
    private let context: OpaquePointer

    /// `name` is OpenSSL's name of the CFB cipher ("AES-256-CFB"); the IV is all zeros. Nil
    /// when this OpenSSL has no such cipher or refuses the key.
    package init?(cipher name: String, key: some ContiguousByteStorage) {
        guard let cipher = OpenSSLProviders.cipher(name) else { return nil }
        guard let context = EVP_CIPHER_CTX_new() else { fatalError("OpenSSL EVP_CIPHER_CTX_new failed (out of memory)") }
        let iv = [UInt8](repeating: 0, count: Int(EVP_CIPHER_get_iv_length(cipher)))
        let ok = key.withUnsafeBytes { k in
            Int(EVP_CIPHER_get_key_length(cipher)) == k.count
                && EVP_EncryptInit_ex2(context, cipher, k.baseAddress!.assumingMemoryBound(to: UInt8.self), iv, nil) == 1
        }
        ERR_clear_error()
        guard ok else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        self.context = context
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Encrypts `input`, going on from where the last call ended (CFB is a stream).
    package func encrypt(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        guard input.count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: input.count)
        var done = 0
        while done < input.count {
            let n = min(input.count - done, 1 << 30)
            var written: Int32 = 0
            let ok = out.withUnsafeMutableBytes { o in
                EVP_EncryptUpdate(context, o.baseAddress!.assumingMemoryBound(to: UInt8.self) + done, &written,
                                  input.baseAddress!.assumingMemoryBound(to: UInt8.self) + done, Int32(n))
            }
            precondition(ok == 1 && Int(written) == n, "OpenSSL CFB encryption failed")
            done += n
        }
        return out
    }
}

/// Seals OpenPGP AEAD chunks (OCB or GCM with AES) with one key.
package final class OpenPGPAEADSealer {
    private let mode: OpenPGPAEADMode
    private let context: OpaquePointer

    /// Nil for EAX (not written), a cipher other than AES, or a key OpenSSL refuses.
    package init?(mode: OpenPGPAEADMode, cipher: OpenPGPCipher, key: some ContiguousByteStorage) {
        guard let bits = cipher.aesBits else { return nil }
        guard mode != .eax, key.withUnsafeBytes({ $0.count }) == bits / 8 else { return nil }
        Crypto.initializeOpenSSL()
        guard let evp = EVP_CIPHER_fetch(nil, "AES-\(bits)-\(mode.name)", nil) else { ERR_clear_error(); return nil }
        defer { EVP_CIPHER_free(evp) }
        guard let context = EVP_CIPHER_CTX_new() else { fatalError("OpenSSL EVP_CIPHER_CTX_new failed (out of memory)") }
        var ok = EVP_EncryptInit_ex2(context, evp, nil, nil, nil) == 1
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(mode.nonceSize), nil) == 1
        if ok { ok = key.withUnsafeBytes { EVP_EncryptInit_ex2(context, nil, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil) } == 1 }
        ERR_clear_error()
        guard ok else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        self.mode = mode
        self.context = context
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// The ciphertext of `plaintext` then its 16-byte tag.
    package func seal(_ plaintext: UnsafeRawBufferPointer, nonce: [UInt8], ad: [UInt8]) -> [UInt8] {
        precondition(nonce.count == mode.nonceSize)
        var out = [UInt8](repeating: 0, count: plaintext.count + 32)
        var written: Int32 = 0
        var done = 0
        var ok = EVP_EncryptInit_ex2(context, nil, nil, nonce, nil) == 1
        if ok && !ad.isEmpty { ok = EVP_EncryptUpdate(context, nil, &written, ad, Int32(ad.count)) == 1 }
        if ok && plaintext.count > 0 {
            ok = out.withUnsafeMutableBytes { o in
                EVP_EncryptUpdate(context, o.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
                                  plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(plaintext.count))
            } == 1
            done = Int(written)
        }
        if ok {
            ok = out.withUnsafeMutableBytes { o in
                EVP_EncryptFinal_ex(context, o.baseAddress!.assumingMemoryBound(to: UInt8.self) + done, &written)
            } == 1
            done += Int(written)
        }
        precondition(ok && done == plaintext.count, "OpenSSL AEAD sealing failed")
        var tag = [UInt8](repeating: 0, count: OpenPGPAEADMode.tagSize)
        precondition(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tag.count), &tag) == 1, "OpenSSL AEAD tag failed")
        ERR_clear_error()
        return Array(out.prefix(done)) + tag
    }
}
