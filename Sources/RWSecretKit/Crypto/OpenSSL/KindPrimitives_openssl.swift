@_spi(Testing) internal import RWSecretCore
internal import COpenSSL

/// The primitives of the other kinds of message (age, Ansible Vault), all from OpenSSL's libcrypto.
///
/// Nothing here runs for an RNCryptor message: each algorithm is looked up on first use.
package enum KindPrimitives {
    /// scrypt with `N = 2^logN`, `r`, `p` (`EVP_PBE_scrypt`); nil when OpenSSL refuses the parameters
    /// or cannot allocate its memory.
    package static func scrypt(password: some ContiguousByteStorage, salt: [UInt8], logN: Int, r: UInt64 = 8, p: UInt64 = 1,
                               length: Int) -> SecretBytes? {
        try? scryptDerivation(password: password, salt: salt, logN: logN, r: r, p: p, length: length).get()
    }

    /// Why scrypt gave no key.
    package enum ScryptFailure: Error, Sendable {
        /// OpenSSL refused the parameters.
        case refused
        /// Its memory could not be allocated (a process or cgroup limit): another time, or
        /// fewer at once, it may succeed.
        case outOfMemory
    }

    /// scrypt as above, saying why it gave no key: OpenSSL's allocation failure (its error
    /// queue's `ERR_R_MALLOC_FAILURE`, or no error at all, as OpenSSL 3.2 and later leave one)
    /// is `.outOfMemory`; anything else is `.refused`.
    package static func scryptDerivation(password: some ContiguousByteStorage, salt: [UInt8], logN: Int, r: UInt64 = 8, p: UInt64 = 1,
                                         length: Int) -> Result<SecretBytes, ScryptFailure> {
        DerivationWitness.deriving(from: password)
        Crypto.initializeOpenSSL()
        ERR_clear_error()
        let n = UInt64(1) << UInt64(logN)
        // The memory scrypt needs (128·r·N for V, 128·r·p for B) and some room.
        let maxMemory = 128 * r * (n + p + 2) + (1 << 20)
        var failed = false
        let key = SecretBytes(count: length) { out in
            let ok = password.withUnsafeBytes { pw in
                salt.withUnsafeBytes { s in
                    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1) { empty in
                        EVP_PBE_scrypt(pw.count > 0 ? pw.baseAddress!.assumingMemoryBound(to: CChar.self) : UnsafePointer(empty.baseAddress!), pw.count,
                                       s.baseAddress!.assumingMemoryBound(to: UInt8.self), s.count,
                                       n, r, p, maxMemory, out.baseAddress!.assumingMemoryBound(to: UInt8.self), length)
                    }
                }
            }
            failed = ok != 1
        }
        guard failed else { return .success(key) }
        let error = ERR_get_error()
        ERR_clear_error()
        return error == 0 || rws_err_is_malloc_failure(error) != 0 ? .failure(.outOfMemory) : .failure(.refused)
    }

    /// PBKDF2-HMAC-SHA256 (`PKCS5_PBKDF2_HMAC`).
    package static func pbkdf2SHA256(password: some ContiguousByteStorage, salt: [UInt8], iterations: Int, length: Int) -> SecretBytes {
        Crypto.initializeOpenSSL()
        defer { KeyDerivation.scaleModelDelay(keys: 1) }  // the scale model (Ansible Vault's keys), nothing otherwise
        return SecretBytes(count: length) { out in
            let ok = password.withUnsafeBytes { pw in
                salt.withUnsafeBytes { s in
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { empty in
                        PKCS5_PBKDF2_HMAC(UnsafeRawPointer(pw.count > 0 ? pw.baseAddress! : UnsafeRawPointer(empty.baseAddress!)).assumingMemoryBound(to: CChar.self),
                                          Int32(pw.count),
                                          s.count > 0 ? s.baseAddress!.assumingMemoryBound(to: UInt8.self) : UnsafePointer(empty.baseAddress!), Int32(s.count),
                                          Int32(iterations), EVP_sha256(), Int32(length), out.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
            precondition(ok == 1, "OpenSSL PKCS5_PBKDF2_HMAC failed")
        }
    }

    /// HKDF-SHA256 (RFC 5869, extract then expand) through `EVP_PKEY_HKDF`.
    package static func hkdfSHA256(key: some ContiguousByteStorage, salt: [UInt8], info: [UInt8], length: Int) -> SecretBytes {
        hkdf(sha512: false, key: key, salt: salt, info: info, length: length)
    }

    /// HKDF (RFC 5869) with SHA-256 or SHA-512 through `EVP_PKEY_HKDF`; an empty salt is a
    /// salt of zeros.
    package static func hkdf(sha512: Bool, key: some ContiguousByteStorage, salt: [UInt8], info: [UInt8], length: Int) -> SecretBytes {
        Crypto.initializeOpenSSL()
        return SecretBytes(count: length) { out in
            guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { fatalError("OpenSSL has no HKDF") }
            defer { EVP_PKEY_CTX_free(ctx) }
            var ok = EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_CTX_set_hkdf_md(ctx, sha512 ? EVP_sha512() : EVP_sha256()) == 1
            // An empty salt means a salt of zeros (RFC 5869 2.2), which OpenSSL does when none is set.
            if ok && !salt.isEmpty {
                ok = salt.withUnsafeBytes { EVP_PKEY_CTX_set1_hkdf_salt(ctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32($0.count)) } == 1
            }
            if ok {
                ok = key.withUnsafeBytes { EVP_PKEY_CTX_set1_hkdf_key(ctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32($0.count)) } == 1
            }
            if ok && !info.isEmpty {
                ok = info.withUnsafeBytes { EVP_PKEY_CTX_add1_hkdf_info(ctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32($0.count)) } == 1
            }
            var outLength = length
            if ok { ok = EVP_PKEY_derive(ctx, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &outLength) == 1 && outLength == length }
            precondition(ok, "OpenSSL HKDF failed")
        }
    }

    /// SHA-256 of `data` (for checks and tests).
    package static func sha256(_ data: [UInt8]) -> [UInt8] {
        Crypto.initializeOpenSSL()
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        let ok = data.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil) }
        precondition(ok == 1 && length == 32, "OpenSSL EVP_Digest failed")
        return digest
    }

    /// HMAC-SHA256 of `data` under `key`.
    package static func hmacSHA256(key: some ContiguousByteStorage, data: some ContiguousByteStorage) -> [UInt8] {
        Authenticator.tag(key: key, data: data)
    }

    /// The X25519 public key of a 32-byte private key.
    package static func x25519PublicKey(privateKey: SecretBytes) -> [UInt8]? {
        Crypto.initializeOpenSSL()
        guard let key = privateKey.withUnsafeBytes({ EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) }) else { return nil }
        defer { EVP_PKEY_free(key) }
        var out = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_get_raw_public_key(key, &out, &length) == 1, length == 32 else { return nil }
        return out
    }

    /// The X25519 shared secret of `privateKey` and `peer` (32 bytes each); nil when OpenSSL refuses them.
    /// OpenSSL itself refuses an all-zero result (a low-order `peer`).
    package static func x25519(privateKey: SecretBytes, peer: [UInt8]) -> SecretBytes? {
        Crypto.initializeOpenSSL()
        guard peer.count == 32,
              let own = privateKey.withUnsafeBytes({ EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) })
        else { return nil }
        defer { EVP_PKEY_free(own) }
        guard let other = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, peer, 32) else { return nil }
        defer { EVP_PKEY_free(other) }
        guard let ctx = EVP_PKEY_CTX_new(own, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, other) == 1 else { return nil }
        var failed = false
        let secret = SecretBytes(count: 32) { out in
            var length = 32
            failed = EVP_PKEY_derive(ctx, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) != 1 || length != 32
        }
        ERR_clear_error()
        if failed { return nil }
        // Check the all-zero value here too, whatever OpenSSL's version does.
        let zero = secret.withUnsafeBytes { raw in raw.allSatisfy { $0 == 0 } }
        return zero ? nil : secret
    }

    /// AES-256-CTR (big-endian 128-bit counter from `iv`) over `input`.
    package static func aes256CTR(key: some ContiguousByteStorage, iv: [UInt8], input: [UInt8]) -> [UInt8] {
        Crypto.initializeOpenSSL()
        guard let ctx = EVP_CIPHER_CTX_new() else { fatalError("OpenSSL EVP_CIPHER_CTX_new failed (out of memory)") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var ok = key.withUnsafeBytes { k in
            EVP_DecryptInit_ex(ctx, EVP_aes_256_ctr(), nil, k.baseAddress!.assumingMemoryBound(to: UInt8.self), iv)
        } == 1
        var output = [UInt8](repeating: 0, count: input.count + 16)
        defer { Crypto.cleanse(&output) }  // the result is a copy: this one may hold a key (OpenSSH's private section)
        var written: Int32 = 0
        var total = 0
        if ok && !input.isEmpty {
            ok = EVP_DecryptUpdate(ctx, &output, &written, input, Int32(input.count)) == 1
            total = Int(written)
        }
        if ok {
            ok = output.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(ctx, $0.baseAddress! + total, &written) } == 1
            total += Int(written)
        }
        precondition(ok && total == input.count, "OpenSSL AES-256-CTR failed")
        return Array(output.prefix(total))
    }
}

/// ChaCha20-Poly1305 (RFC 8439) opening under one key, one message or chunk at a time
/// (`EVP_chacha20_poly1305`): the plaintext of a call is usable only when it returns true.
package final class ChaChaPolyOpener {
    /// The size of the Poly1305 tag.
    package static let tagSize = 16
    private let context: OpaquePointer

    /// An opener for the 32-byte `key`.
    package init(key: some ContiguousByteStorage) {
        context = Self.context(key: key, sealing: false)
    }

    /// A ChaCha20-Poly1305 context keyed with `key`, for opening or (`ChaChaPolySealer`) sealing.
    static func context(key: some ContiguousByteStorage, sealing: Bool) -> OpaquePointer {
        Crypto.initializeOpenSSL()
        guard let ctx = EVP_CIPHER_CTX_new() else { fatalError("OpenSSL EVP_CIPHER_CTX_new failed (out of memory)") }
        let ok = key.withUnsafeBytes { k in
            let raw = k.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return sealing ? EVP_EncryptInit_ex(ctx, EVP_chacha20_poly1305(), nil, raw, nil)
                           : EVP_DecryptInit_ex(ctx, EVP_chacha20_poly1305(), nil, raw, nil)
        }
        precondition(ok == 1, "OpenSSL ChaCha20-Poly1305 set-up failed")
        return ctx
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Decrypts `sealed` (ciphertext then tag) with the 12-byte `nonce` into `output`
    /// (at least `sealed.count - 16` bytes). False when the tag does not match or `sealed`
    /// is shorter than a tag; `output` then holds nothing usable.
    package func open(_ sealed: UnsafeRawBufferPointer, nonce: [UInt8], into output: UnsafeMutableRawBufferPointer) -> Bool {
        guard sealed.count >= Self.tagSize, nonce.count == 12 else { return false }
        let length = sealed.count - Self.tagSize
        precondition(output.count >= length)
        guard EVP_DecryptInit_ex(context, nil, nil, nil, nonce) == 1 else { return false }
        var written: Int32 = 0
        if length > 0 {
            guard EVP_DecryptUpdate(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
                                    sealed.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(length)) == 1,
                  Int(written) == length else { return false }
        }
        var tag = Array(sealed[length...])
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagSize), &tag) == 1 else { return false }
        let ok = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { scratch in
            EVP_DecryptFinal_ex(context, scratch.baseAddress!, &written)
        }
        ERR_clear_error()
        return ok == 1
    }

    /// Opens a whole `sealed` message with `nonce`; nil when the tag does not match.
    package func open(_ sealed: [UInt8], nonce: [UInt8]) -> SecretBytes? {
        guard sealed.count >= Self.tagSize else { return nil }
        var ok = false
        let plain = SecretBytes(count: sealed.count - Self.tagSize) { out in
            ok = sealed.withUnsafeBytes { open($0, nonce: nonce, into: out) }
        }
        return ok ? plain : nil
    }
}
