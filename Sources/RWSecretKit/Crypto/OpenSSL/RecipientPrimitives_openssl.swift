internal import COpenSSL

/// The primitives of writing age files and of SSH keys as age uses them, all from OpenSSL's
/// libcrypto: ChaCha20-Poly1305 sealing, the Ed25519 → X25519 (Edwards y → Montgomery u)
/// map in OpenSSL's big numbers, SHA-512, and RSA-OAEP-SHA256.
extension KindPrimitives {
    /// The X25519 base point (u = 9).
    static let x25519BasePoint: [UInt8] = [9] + [UInt8](repeating: 0, count: 31)

    /// SHA-512 of `data`.
    static func sha512(_ data: some ContiguousByteStorage) -> SecretBytes {
        Crypto.initializeOpenSSL()
        return SecretBytes(count: 64) { out in
            var length: UInt32 = 64
            let ok = data.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, EVP_sha512(), nil) }
            precondition(ok == 1 && length == 64, "OpenSSL EVP_Digest failed")
        }
    }

    /// The Montgomery u-coordinate of an Ed25519 public key, as age computes it
    /// (`u = (1 + y) / (1 - y) mod 2^255 - 19`); nil when `y` is not canonical or `1 - y` is zero.
    static func ed25519PublicToX25519(_ publicKey: [UInt8]) -> [UInt8]? {
        guard publicKey.count == 32 else { return nil }
        Crypto.initializeOpenSSL()
        guard let ctx = BN_CTX_new() else { return nil }
        defer { BN_CTX_free(ctx) }
        var yBytes = publicKey
        yBytes[31] &= 0x7f
        let big = { (bytes: [UInt8]) -> OpaquePointer? in BN_lebin2bn(bytes, Int32(bytes.count), nil) }
        // p = 2^255 - 19, little-endian.
        var pBytes = [UInt8](repeating: 0xff, count: 32)
        pBytes[0] = 0xed
        pBytes[31] = 0x7f
        guard let y = big(yBytes), let p = big(pBytes), let one = big([1]), let numerator = BN_new(), let denominator = BN_new(), let u = BN_new() else { return nil }
        defer { [y, p, one, numerator, denominator, u].forEach { BN_free($0) } }
        guard BN_cmp(y, p) < 0,
              BN_mod_add(numerator, one, y, p, ctx) == 1,
              BN_mod_sub(denominator, one, y, p, ctx) == 1,
              BN_is_zero(denominator) == 0,
              BN_mod_inverse(denominator, denominator, p, ctx) != nil,
              BN_mod_mul(u, numerator, denominator, p, ctx) == 1 else { return nil }
        var out = [UInt8](repeating: 0, count: 32)
        guard BN_bn2lebinpad(u, &out, 32) == 32 else { return nil }
        return out
    }

    /// An RSA public key from its big-endian modulus and exponent.
    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) -> RSAKey? {
        RSAKey([("n", modulus), ("e", exponent)])
    }

    /// An RSA private key from its big-endian modulus, public and private exponents.
    static func rsaPrivateKey(modulus: [UInt8], exponent: [UInt8], privateExponent: SecretBytes) -> RSAKey? {
        var d = privateExponent.withUnsafeBytes { Array($0) }
        defer { Crypto.cleanse(&d) }
        return RSAKey([("n", modulus), ("e", exponent), ("d", d)])
    }
}

/// An RSA key held by OpenSSL (`EVP_PKEY`), for age's ssh-rsa stanzas: RSA-OAEP with SHA-256,
/// MGF1-SHA-256 and the label `age-encryption.org/v1/ssh-rsa`.
final class RSAKey: @unchecked Sendable {
    fileprivate let key: OpaquePointer
    /// The modulus size in bits.
    let bits: Int

    fileprivate init?(_ parts: [(key: StaticString, value: [UInt8])]) {
        guard let made = Self.makeKey(parts, keypair: parts.count == 3) else { return nil }
        key = made
        bits = Int(EVP_PKEY_get_bits(made))
    }

    /// An RSA EVP_PKEY from its numbers (n, e; and d for a key pair), owned by the caller; nil
    /// where OpenSSL refuses them.
    static func makeKey(_ parts: [(key: StaticString, value: [UInt8])], keypair: Bool) -> OpaquePointer? {
        Crypto.initializeOpenSSL()
        guard let builder = OSSL_PARAM_BLD_new() else { return nil }
        defer { OSSL_PARAM_BLD_free(builder) }
        var numbers: [OpaquePointer] = []
        defer { numbers.forEach { BN_clear_free($0) } }
        for (name, bytes) in parts {
            guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { return nil }
            numbers.append(number)
            guard OSSL_PARAM_BLD_push_BN(builder, UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self), number) == 1 else { return nil }
        }
        guard let params = OSSL_PARAM_BLD_to_param(builder) else { return nil }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var made: OpaquePointer?
        let selection = keypair ? rws_select_keypair() : rws_select_public_key()
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &made, selection, params) == 1, let made else {
            ERR_clear_error()
            return nil
        }
        return made
    }

    /// A key OpenSSL made (its PEM reader): released with this object.
    fileprivate init(owning key: OpaquePointer) {
        self.key = key
        bits = Int(EVP_PKEY_get_bits(key))
    }

    deinit { EVP_PKEY_free(key) }

    private static let label = Array("age-encryption.org/v1/ssh-rsa".utf8)

    private func oaepContext(encrypt: Bool) -> OpaquePointer? {
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { return nil }
        let labelCopy = CRYPTO_malloc(Self.label.count, nil, 0)!
        labelCopy.copyMemory(from: Self.label, byteCount: Self.label.count)
        guard (encrypt ? EVP_PKEY_encrypt_init(ctx) : EVP_PKEY_decrypt_init(ctx)) == 1,
              EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1,
              EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) == 1,
              EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha256()) == 1,
              EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, labelCopy, Int32(Self.label.count)) == 1 else {
            EVP_PKEY_CTX_free(ctx)
            ERR_clear_error()
            return nil
        }
        return ctx
    }

    /// RSA-OAEP-SHA256 of `message` under this public key.
    func encrypt(_ message: SecretBytes) -> [UInt8]? {
        guard let ctx = oaepContext(encrypt: true) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: (bits + 7) / 8)
        var length = out.count
        let ok = message.withUnsafeBytes { EVP_PKEY_encrypt(ctx, &out, &length, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) }
        ERR_clear_error()
        return ok == 1 ? Array(out.prefix(length)) : nil
    }

    /// The message of an RSA-OAEP-SHA256 `ciphertext`; nil when it does not decrypt.
    func decrypt(_ ciphertext: [UInt8]) -> SecretBytes? {
        guard let ctx = oaepContext(encrypt: false) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var buffer = [UInt8](repeating: 0, count: (bits + 7) / 8)
        defer { Crypto.cleanse(&buffer) }
        var length = buffer.count
        let ok = EVP_PKEY_decrypt(ctx, &buffer, &length, ciphertext, ciphertext.count)
        ERR_clear_error()
        return ok == 1 ? SecretBytes(buffer.prefix(length)) : nil
    }
}

/// ChaCha20-Poly1305 (RFC 8439) sealing under one key (`EVP_chacha20_poly1305`): the
/// counterpart of `ChaChaPolyOpener`.
package final class ChaChaPolySealer {
    private let context: OpaquePointer

    package init(key: some ContiguousByteStorage) {
        context = ChaChaPolyOpener.context(key: key, sealing: true)
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Encrypts `plain` with the 12-byte `nonce` into `output` (`plain.count + 16` bytes: the ciphertext then the tag).
    package func seal(_ plain: UnsafeRawBufferPointer, nonce: [UInt8], into output: UnsafeMutableRawBufferPointer) {
        precondition(nonce.count == 12 && output.count >= plain.count + ChaChaPolyOpener.tagSize)
        var ok = EVP_EncryptInit_ex(context, nil, nil, nil, nonce) == 1
        var written: Int32 = 0
        if ok && plain.count > 0 {
            ok = EVP_EncryptUpdate(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
                                   plain.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(plain.count)) == 1 && Int(written) == plain.count
        }
        if ok {
            ok = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { scratch in
                EVP_EncryptFinal_ex(context, scratch.baseAddress!, &written)
            } == 1
        }
        if ok {
            ok = EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(ChaChaPolyOpener.tagSize), output.baseAddress! + plain.count) == 1
        }
        precondition(ok, "OpenSSL ChaCha20-Poly1305 sealing failed")
    }

    /// Seals a whole small message (a file key) with `nonce`.
    package func seal(_ plain: SecretBytes, nonce: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: plain.count + ChaChaPolyOpener.tagSize)
        plain.withUnsafeBytes { p in out.withUnsafeMutableBytes { seal(p, nonce: nonce, into: $0) } }
        return out
    }
}

extension RSAKey {
    /// An RSA private key from PEM text (`-----BEGIN RSA PRIVATE KEY-----` as `ssh-keygen -m PEM`
    /// writes it, or PKCS#8 `PRIVATE KEY`), read by OpenSSL's PEM reader; an encrypted one
    /// (`Proc-Type: 4,ENCRYPTED`, `ENCRYPTED PRIVATE KEY`) with `passphrase`. Nil when OpenSSL
    /// cannot read it (a wrong passphrase among the reasons) or it is not RSA.
    convenience init?(pem: [UInt8], passphrase: SecretBytes?) {
        Crypto.addPEMCipherNames()
        guard let bio = pem.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else { return nil }
        defer { BIO_free(bio) }
        // OpenSSL takes the passphrase as a NUL-terminated string when there is no callback.
        var phrase = [UInt8](repeating: 0, count: (passphrase?.count ?? 0) + 1)
        defer { Crypto.cleanse(&phrase) }
        passphrase?.withUnsafeBytes { for (index, byte) in $0.enumerated() { phrase[index] = byte } }
        let read = phrase.withUnsafeMutableBytes { PEM_read_bio_PrivateKey(bio, nil, nil, $0.baseAddress) }
        ERR_clear_error()
        guard let read else { return nil }
        guard EVP_PKEY_get_base_id(read) == EVP_PKEY_RSA else { EVP_PKEY_free(read); return nil }
        self.init(owning: read)
    }

    /// The public key in SSH wire form: `ssh-rsa`, e, n (mpints).
    var sshWire: [UInt8]? {
        func number(_ name: String) -> [UInt8]? {
            var bn: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, name, &bn) == 1, let bn else { ERR_clear_error(); return nil }
            defer { BN_free(bn) }
            var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(bn) + 7) / 8))
            _ = BN_bn2bin(bn, &bytes)
            return bytes.first.map { $0 & 0x80 != 0 } == true ? [0] + bytes : bytes
        }
        guard let e = number("e"), let n = number("n") else { return nil }
        func string(_ bytes: [UInt8]) -> [UInt8] {
            let count = UInt32(bytes.count)
            return [UInt8(count >> 24), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff), UInt8(count & 0xff)] + bytes
        }
        return string(Array("ssh-rsa".utf8)) + string(e) + string(n)
    }
}
