internal import COpenSSL

/// The signature checks of signed-and-encrypted OpenPGP messages, all OpenSSL's: RSA PKCS#1
/// v1.5 over a digest, ECDSA over the NIST curves, and pure Ed25519 / Ed448 over the digest
/// (OpenPGP signs the hash with EdDSA as a message). Each says only whether the signature holds.
extension OpenPGPKeyPrimitives {
    /// RSA PKCS#1 v1.5: `signature` (an MPI's bytes) over `digest`, made with the hash OpenSSL calls `hash`.
    static func rsaVerifyPKCS1(n: [UInt8], e: [UInt8], hash: String, digest: [UInt8], signature: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard signature.count <= n.count, let md = OpenSSLProviders.digest(hash), let key = rsaPublicKey(n: n, e: e) else { return false }
        defer { EVP_PKEY_free(key) }
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_verify_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1,
              EVP_PKEY_CTX_set_signature_md(ctx, md) == 1 else { return false }
        // An MPI drops leading zeros: the signature is as long as the modulus.
        let padded = [UInt8](repeating: 0, count: n.count - signature.count) + signature
        return EVP_PKEY_verify(ctx, padded, padded.count, digest, digest.count) == 1
    }

    /// ECDSA over a NIST curve: (r, s) over `digest` with the uncompressed public point.
    static func ecdsaVerify(_ curve: Curve, point: [UInt8], digest: [UInt8], r: [UInt8], s: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard !r.isEmpty, !s.isEmpty, let key = ecKey(curve, publicPoint: point, privateScalar: nil) else { return false }
        defer { EVP_PKEY_free(key) }
        // The DER form OpenSSL verifies, made by OpenSSL (ECDSA_SIG owns r and s once set).
        guard let sig = ECDSA_SIG_new() else { return false }
        defer { ECDSA_SIG_free(sig) }
        guard let bnR = BN_bin2bn(r, Int32(r.count), nil) else { return false }
        guard let bnS = BN_bin2bn(s, Int32(s.count), nil) else { BN_free(bnR); return false }
        guard ECDSA_SIG_set0(sig, bnR, bnS) == 1 else { BN_free(bnR); BN_free(bnS); return false }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { return false }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &cursor)
        }
        guard written == length else { return false }
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_verify_init(ctx) == 1 else { return false }
        return EVP_PKEY_verify(ctx, der, der.count, digest, digest.count) == 1
    }

    /// Ed25519 (32-byte key, 64-byte signature) or Ed448 (57, 114): `signature` over `message`.
    static func eddsaVerify(ed448: Bool, publicKey: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        Crypto.initializeOpenSSL()
        defer { ERR_clear_error() }
        guard publicKey.count == (ed448 ? 57 : 32), signature.count == (ed448 ? 114 : 64),
              let key = EVP_PKEY_new_raw_public_key(ed448 ? EVP_PKEY_ED448 : EVP_PKEY_ED25519, nil, publicKey, publicKey.count) else { return false }
        defer { EVP_PKEY_free(key) }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, nil, nil, key) == 1 else { return false }
        return EVP_DigestVerify(ctx, signature, signature.count, message, message.count) == 1
    }
}
