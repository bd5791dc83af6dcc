internal import COpenSSL

/// The public-key primitives of OpenPGP messages to keys, all from OpenSSL's libcrypto: RSA
/// PKCS#1 v1.5, X25519 and X448, ECDH over the NIST curves, HKDF with SHA-256 or SHA-512, and
/// the AES key wrap (RFC 3394).
package enum OpenPGPKeyPrimitives {
    /// The NIST curves by their OpenSSL group names and sizes (field bytes).
    package enum Curve: Sendable, Equatable {
        case p256, p384, p521

        var groupName: String {
            switch self {
            case .p256: "prime256v1"
            case .p384: "secp384r1"
            case .p521: "secp521r1"
            }
        }

        /// The size of a field element in bytes.
        package var fieldSize: Int {
            switch self {
            case .p256: 32
            case .p384: 48
            case .p521: 66
            }
        }
    }

    /// An RSA private key from OpenPGP's parts (n, e, d; p and q are checked by OpenSSL's use).
    static func rsaPrivateKey(n: [UInt8], e: [UInt8], d: SecretBytes) -> OpaquePointer? {
        var dBytes = d.withUnsafeBytes { Array($0) }
        defer { Crypto.cleanse(&dBytes) }
        return makeRSA([("n", n), ("e", e), ("d", dBytes)], keypair: true)
    }

    /// An RSA public key from n and e.
    static func rsaPublicKey(n: [UInt8], e: [UInt8]) -> OpaquePointer? {
        makeRSA([("n", n), ("e", e)], keypair: false)
    }

    private static func makeRSA(_ parts: [(key: StaticString, value: [UInt8])], keypair: Bool) -> OpaquePointer? {
        RSAKey.makeKey(parts, keypair: keypair)
    }

    /// RSA PKCS#1 v1.5 decryption of `ciphertext` with the private key (n, e, d). A padding
    /// failure is not told apart from a wrong key: OpenSSL 3.2 and later do implicit rejection
    /// themselves (a deterministic random message); where OpenSSL 3.0 returns an error, the
    /// result is random bytes of `length`, which the caller's checksum refuses.
    static func rsaDecryptPKCS1(n: [UInt8], e: [UInt8], d: SecretBytes, ciphertext: [UInt8], length: Int) -> SecretBytes? {
        guard let key = rsaPrivateKey(n: n, e: e, d: d) else { return nil }
        defer { EVP_PKEY_free(key) }
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_decrypt_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1 else {
            ERR_clear_error()
            return nil
        }
        // A ciphertext shorter than the modulus (leading zeros dropped by the MPI) is padded back.
        let size = n.count
        guard ciphertext.count <= size else { return nil }
        let padded = [UInt8](repeating: 0, count: size - ciphertext.count) + ciphertext
        var buffer = [UInt8](repeating: 0, count: size)
        defer { Crypto.cleanse(&buffer) }
        var outLength = size
        let ok = EVP_PKEY_decrypt(ctx, &buffer, &outLength, padded, padded.count) == 1
        ERR_clear_error()
        // OpenSSL 3.0 tells a padding failure by its return (3.2 and later return a random
        // message instead): then a random message of the expected length goes on, refused by
        // the checksum as a wrong key's is, with no early return and no other message.
        guard ok else { return SecretBytes(Crypto.randomBytes(count: length)) }
        return SecretBytes(buffer.prefix(outLength))
    }

    /// RSA PKCS#1 v1.5 encryption of `message` to the public key (n, e): the MPI's bytes.
    static func rsaEncryptPKCS1(n: [UInt8], e: [UInt8], message: SecretBytes) -> [UInt8]? {
        guard let key = rsaPublicKey(n: n, e: e) else { return nil }
        defer { EVP_PKEY_free(key) }
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_encrypt_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1 else {
            ERR_clear_error()
            return nil
        }
        var out = [UInt8](repeating: 0, count: n.count + 1)
        var length = out.count
        let ok = message.withUnsafeBytes { EVP_PKEY_encrypt(ctx, &out, &length, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) }
        ERR_clear_error()
        return ok == 1 ? Array(out.prefix(length)) : nil
    }

    /// X25519 (32-byte keys) or X448 (56-byte keys): the public key of a raw private key.
    static func montgomeryPublicKey(privateKey: SecretBytes, x448: Bool) -> [UInt8]? {
        Crypto.initializeOpenSSL()
        let type = x448 ? EVP_PKEY_X448 : EVP_PKEY_X25519
        guard let key = privateKey.withUnsafeBytes({ EVP_PKEY_new_raw_private_key(type, nil, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) }) else {
            ERR_clear_error()
            return nil
        }
        defer { EVP_PKEY_free(key) }
        let size = x448 ? 56 : 32
        var out = [UInt8](repeating: 0, count: size)
        var length = size
        guard EVP_PKEY_get_raw_public_key(key, &out, &length) == 1, length == size else { return nil }
        return out
    }

    /// The X25519 or X448 shared secret of a raw private key and a peer's public key; nil when
    /// OpenSSL refuses them or the result is all zeros (a low-order point).
    static func montgomery(privateKey: SecretBytes, peer: [UInt8], x448: Bool) -> SecretBytes? {
        Crypto.initializeOpenSSL()
        let type = x448 ? EVP_PKEY_X448 : EVP_PKEY_X25519
        let size = x448 ? 56 : 32
        guard peer.count == size,
              let own = privateKey.withUnsafeBytes({ EVP_PKEY_new_raw_private_key(type, nil, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) })
        else { ERR_clear_error(); return nil }
        defer { EVP_PKEY_free(own) }
        guard let other = EVP_PKEY_new_raw_public_key(type, nil, peer, size) else { ERR_clear_error(); return nil }
        defer { EVP_PKEY_free(other) }
        return derive(own, other, size: size)
    }

    /// A fresh X25519 or X448 key pair: (private, public).
    static func montgomeryKeyPair(x448: Bool) -> (SecretBytes, [UInt8])? {
        let size = x448 ? 56 : 32
        var random = Crypto.randomBytes(count: size)
        let secret = SecretBytes(random)
        Crypto.cleanse(&random)
        guard let pub = montgomeryPublicKey(privateKey: secret, x448: x448) else { return nil }
        return (secret, pub)
    }

    private static func derive(_ own: OpaquePointer, _ other: OpaquePointer, size: Int) -> SecretBytes? {
        guard let ctx = EVP_PKEY_CTX_new(own, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, other) == 1 else { ERR_clear_error(); return nil }
        var failed = false
        let secret = SecretBytes(count: size) { out in
            var length = size
            failed = EVP_PKEY_derive(ctx, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) != 1 || length != size
        }
        ERR_clear_error()
        if failed { return nil }
        let zero = secret.withUnsafeBytes { raw in raw.allSatisfy { $0 == 0 } }
        return zero ? nil : secret
    }

    /// A parameter's name as a pointer that lives as long as the program (the builder keeps it).
    private static func name(_ name: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    static func ecKey(_ curve: Curve, publicPoint: [UInt8], privateScalar: SecretBytes?) -> OpaquePointer? {
        Crypto.initializeOpenSSL()
        guard let builder = OSSL_PARAM_BLD_new() else { return nil }
        defer { OSSL_PARAM_BLD_free(builder) }
        var number: OpaquePointer? = nil
        defer { if let number { BN_clear_free(number) } }
        // The builder keeps pointers to the string and the point until it makes the parameters:
        // copies that live that long (a Swift argument's pointer lives only for its call).
        let group = Array(curve.groupName.utf8CString)
        let groupCopy = UnsafeMutableBufferPointer<CChar>.allocate(capacity: group.count)
        _ = groupCopy.initialize(from: group)
        let pointCopy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(publicPoint.count, 1))
        _ = pointCopy.initialize(from: publicPoint)
        defer {
            groupCopy.deallocate()
            pointCopy.deallocate()
        }
        guard OSSL_PARAM_BLD_push_utf8_string(builder, Self.name("group"), groupCopy.baseAddress, 0) == 1,
              OSSL_PARAM_BLD_push_octet_string(builder, Self.name("pub"), pointCopy.baseAddress, publicPoint.count) == 1 else { return nil }
        if let privateScalar {
            number = privateScalar.withUnsafeBytes { BN_bin2bn($0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32($0.count), nil) }
            guard let number, OSSL_PARAM_BLD_push_BN(builder, Self.name("priv"), number) == 1 else { return nil }
        }
        guard let params = OSSL_PARAM_BLD_to_param(builder) else { return nil }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var made: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1,
              EVP_PKEY_fromdata(ctx, &made, privateScalar == nil ? rws_select_public_key() : rws_select_keypair(), params) == 1 else {
            ERR_clear_error()
            return nil
        }
        return made
    }

    /// ECDH over a NIST curve: the x coordinate of d·peer; nil when OpenSSL refuses the point.
    static func ecdh(_ curve: Curve, privateScalar: SecretBytes, ownPublic: [UInt8], peer: [UInt8]) -> SecretBytes? {
        guard let own = ecKey(curve, publicPoint: ownPublic, privateScalar: privateScalar) else { return nil }
        defer { EVP_PKEY_free(own) }
        guard let other = ecKey(curve, publicPoint: peer, privateScalar: nil) else { return nil }
        defer { EVP_PKEY_free(other) }
        return derive(own, other, size: curve.fieldSize)
    }

    /// A fresh key pair on a NIST curve: (private scalar, uncompressed public point).
    static func ecKeyPair(_ curve: Curve) -> (SecretBytes, [UInt8])? {
        Crypto.initializeOpenSSL()
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        let group = curve.groupName
        guard EVP_PKEY_keygen_init(ctx) == 1,
              group.withCString({ EVP_PKEY_CTX_set_group_name(ctx, $0) }) == 1,
              EVP_PKEY_generate(ctx, &key) == 1, let key else { ERR_clear_error(); return nil }
        defer { EVP_PKEY_free(key) }
        var pub = [UInt8](repeating: 0, count: 1 + 2 * curve.fieldSize)
        var pubLength = 0
        guard EVP_PKEY_get_octet_string_param(key, "pub", &pub, pub.count, &pubLength) == 1 else { ERR_clear_error(); return nil }
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key, "priv", &bn) == 1, let bn else { ERR_clear_error(); return nil }
        defer { BN_clear_free(bn) }
        let scalar = SecretBytes(count: curve.fieldSize) { out in
            _ = BN_bn2binpad(bn, out.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(curve.fieldSize))
        }
        return (scalar, Array(pub.prefix(pubLength)))
    }

    /// HKDF (RFC 5869) with SHA-256 or SHA-512, no salt.
    static func hkdf(sha512: Bool, key: some ContiguousByteStorage, info: [UInt8], length: Int) -> SecretBytes {
        KindPrimitives.hkdf(sha512: sha512, key: key, salt: [], info: info, length: length)
    }

    /// The AES key wrap (RFC 3394) with a 16-, 24- or 32-byte key encryption key: unwraps
    /// `wrapped`; nil when its integrity check fails (a wrong key).
    static func aesUnwrap(kek: SecretBytes, wrapped: [UInt8]) -> SecretBytes? {
        guard wrapped.count >= 24, wrapped.count % 8 == 0 else { return nil }
        return aesWrap(kek: kek, input: wrapped.withUnsafeBytes { SecretBytes($0) }, encrypt: false)
    }

    /// The AES key wrap of `key` (a multiple of 8 bytes, at least 16).
    static func aesWrap(kek: SecretBytes, key: SecretBytes) -> [UInt8]? {
        aesWrap(kek: kek, input: key, encrypt: true)?.withUnsafeBytes { Array($0) }
    }

    private static func aesWrap(kek: SecretBytes, input: SecretBytes, encrypt: Bool) -> SecretBytes? {
        Crypto.initializeOpenSSL()
        let cipher: OpaquePointer?
        switch kek.count {
        case 16: cipher = EVP_aes_128_wrap()
        case 24: cipher = EVP_aes_192_wrap()
        case 32: cipher = EVP_aes_256_wrap()
        default: return nil
        }
        guard let cipher, let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        EVP_CIPHER_CTX_set_flags(ctx, Int32(EVP_CIPHER_CTX_FLAG_WRAP_ALLOW))
        let keyed = kek.withUnsafeBytes { k in
            EVP_CipherInit_ex(ctx, cipher, nil, k.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, encrypt ? 1 : 0) == 1
        }
        guard keyed else { ERR_clear_error(); return nil }
        let outSize = input.count + 8
        var produced: Int32 = 0
        var failed = false
        let result = SecretBytes(count: outSize) { out in
            let ok = input.withUnsafeBytes { i in
                EVP_CipherUpdate(ctx, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &produced,
                                 i.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(i.count))
            }
            failed = ok != 1 || produced <= 0
        }
        ERR_clear_error()
        return failed ? nil : result.slice(0..<Int(produced))
    }
}
