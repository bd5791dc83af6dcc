internal import COpenSSL

/// OpenPGP's AEAD modes (RFC 9580 5.13.2 and 9.6), with AES: OCB and GCM are OpenSSL's EVP
/// ciphers; EAX (which OpenSSL lacks) is built from OpenSSL's AES-CTR and CMAC as the EAX
/// paper defines it, with the tag checked before any byte is decrypted.
package enum OpenPGPAEADMode: UInt8, Sendable {
    case eax = 1, ocb = 2, gcm = 3

    /// The nonce size in bytes.
    package var nonceSize: Int {
        switch self {
        case .eax: 16
        case .ocb: 15
        case .gcm: 12
        }
    }

    package var name: String {
        switch self {
        case .eax: "EAX"
        case .ocb: "OCB"
        case .gcm: "GCM"
        }
    }

    /// The tag size (16 bytes in every mode).
    package static let tagSize = 16
}

/// Opens messages sealed with one key in one OpenPGP AEAD mode.
package final class OpenPGPAEADOpener {
    private let mode: OpenPGPAEADMode
    /// OCB, GCM: the AEAD cipher context; EAX: the AES-CTR context.
    private let cipher: OpaquePointer
    /// EAX: a CMAC context keyed with the key, duplicated for each OMAC.
    private let cmac: OpaquePointer?

    /// Nil when `cipher` is not AES (OpenSSL has no OCB or GCM for the others) or OpenSSL refuses the key.
    package init?(mode: OpenPGPAEADMode, cipher: OpenPGPCipher, key: some ContiguousByteStorage) {
        guard let bits = cipher.aesBits else { return nil }
        Crypto.initializeOpenSSL()
        guard key.withUnsafeBytes({ $0.count }) == bits / 8 else { return nil }
        let name = "AES-\(bits)-" + (mode == .eax ? "CTR" : mode.name)
        guard let evp = EVP_CIPHER_fetch(nil, name, nil) else { ERR_clear_error(); return nil }
        defer { EVP_CIPHER_free(evp) }
        guard let context = EVP_CIPHER_CTX_new() else { fatalError("OpenSSL EVP_CIPHER_CTX_new failed (out of memory)") }
        var ok = EVP_DecryptInit_ex2(context, evp, nil, nil, nil) == 1
        if ok && mode != .eax {
            ok = EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(mode.nonceSize), nil) == 1
        }
        if ok { ok = key.withUnsafeBytes { EVP_DecryptInit_ex2(context, nil, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil) } == 1 }
        var mac: OpaquePointer? = nil
        if ok && mode == .eax {
            mac = Self.cmacContext(bits: bits, key: key)
            ok = mac != nil
        }
        ERR_clear_error()
        guard ok else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        self.mode = mode
        self.cipher = context
        self.cmac = mac
    }

    deinit {
        EVP_CIPHER_CTX_free(cipher)
        if let cmac { EVP_MAC_CTX_free(cmac) }
    }

    private static func cmacContext(bits: Int, key: some ContiguousByteStorage) -> OpaquePointer? {
        guard let mac = EVP_MAC_fetch(nil, "CMAC", nil) else { return nil }
        defer { EVP_MAC_free(mac) }
        guard let context = EVP_MAC_CTX_new(mac) else { return nil }
        let ok = "cipher".withCString { parameter in
            "AES-\(bits)-CBC".withCString { value in
                var params = [OSSL_PARAM_construct_utf8_string(parameter, UnsafeMutablePointer(mutating: value), 0), OSSL_PARAM_construct_end()]
                return key.withUnsafeBytes { EVP_MAC_init(context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count, &params) }
            }
        }
        guard ok == 1 else {
            EVP_MAC_CTX_free(context)
            return nil
        }
        return context
    }

    /// Decrypts `ciphertext` into `output` (as many bytes) with `nonce` and associated data `ad`,
    /// checking `tag` (16 bytes). False when the tag does not match; `output` then holds nothing
    /// usable (EAX writes nothing; OCB and GCM may have written bytes the caller must drop).
    package func open(_ ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, nonce: [UInt8], ad: [UInt8],
                      into output: UnsafeMutableRawBufferPointer) -> Bool {
        precondition(output.count >= ciphertext.count)
        guard tag.count == OpenPGPAEADMode.tagSize, nonce.count == mode.nonceSize else { return false }
        defer { ERR_clear_error() }
        return mode == .eax ? openEAX(ciphertext, tag: tag, nonce: nonce, ad: ad, into: output)
                            : openEVP(ciphertext, tag: tag, nonce: nonce, ad: ad, into: output)
    }

    private func openEVP(_ ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, nonce: [UInt8], ad: [UInt8],
                         into output: UnsafeMutableRawBufferPointer) -> Bool {
        guard EVP_DecryptInit_ex2(cipher, nil, nil, nonce, nil) == 1 else { return false }
        var written: Int32 = 0
        if !ad.isEmpty {
            guard EVP_DecryptUpdate(cipher, nil, &written, ad, Int32(ad.count)) == 1 else { return false }
        }
        var done = 0
        while done < ciphertext.count {
            let n = min(ciphertext.count - done, 1 << 30)
            guard EVP_DecryptUpdate(cipher, output.baseAddress!.assumingMemoryBound(to: UInt8.self) + done, &written,
                                    ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self) + done, Int32(n)) == 1 else { return false }
            done += Int(written)
            if Int(written) != n { break }
        }
        var expected = Array(tag)
        guard EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_AEAD_SET_TAG, Int32(expected.count), &expected) == 1 else { return false }
        // OCB may hold back a last partial block until Final, which writes it after the rest.
        guard done <= ciphertext.count, ciphertext.count - done < 16 else { return false }
        let ok = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { scratch in
            let ok = EVP_DecryptFinal_ex(cipher, scratch.baseAddress!, &written) == 1 && done + Int(written) == ciphertext.count
            if ok && written > 0 { (output.baseAddress! + done).copyMemory(from: scratch.baseAddress!, byteCount: Int(written)) }
            Crypto.cleanse(UnsafeMutableRawBufferPointer(scratch))
            return ok
        }
        return ok
    }

    /// EAX (Bellare, Rogaway, Wagner): N' = OMAC0(N), H' = OMAC1(H), C' = OMAC2(C); the tag is
    /// N' ^ H' ^ C'; the plaintext is AES-CTR from N'.
    private func openEAX(_ ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, nonce: [UInt8], ad: [UInt8],
                         into output: UnsafeMutableRawBufferPointer) -> Bool {
        nonce.withUnsafeBytes { n in
            ad.withUnsafeBytes { h in
                guard let n1 = omac(0, n), let h1 = omac(1, h), let c1 = omac(2, ciphertext) else { return false }
                var difference: UInt8 = 0
                for i in 0..<16 { difference |= n1[i] ^ h1[i] ^ c1[i] ^ tag[i] }
                guard difference == 0 else { return false }
                guard EVP_DecryptInit_ex2(cipher, nil, nil, n1, nil) == 1 else { return false }
                var done = 0
                while done < ciphertext.count {
                    let count = min(ciphertext.count - done, 1 << 30)
                    var written: Int32 = 0
                    guard EVP_DecryptUpdate(cipher, output.baseAddress!.assumingMemoryBound(to: UInt8.self) + done, &written,
                                            ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self) + done, Int32(count)) == 1,
                          Int(written) == count else { return false }
                    done += count
                }
                return true
            }
        }
    }

    /// OMAC^t(M) = CMAC(K, [t]_16 || M).
    private func omac(_ t: UInt8, _ message: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let context = EVP_MAC_CTX_dup(cmac) else { return nil }
        defer { EVP_MAC_CTX_free(context) }
        var block = [UInt8](repeating: 0, count: 16)
        block[15] = t
        guard EVP_MAC_update(context, block, 16) == 1 else { return nil }
        if message.count > 0 {
            guard EVP_MAC_update(context, message.baseAddress!.assumingMemoryBound(to: UInt8.self), message.count) == 1 else { return nil }
        }
        var out = [UInt8](repeating: 0, count: 16)
        var length = 0
        guard EVP_MAC_final(context, &out, &length, 16) == 1, length == 16 else { return nil }
        return out
    }
}
