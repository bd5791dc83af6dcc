/// Public-key encrypted session key packets (PKESK v3 and v6, RFC 9580 5.1): parsed from a
/// message, opened with a secret key (RSA PKCS#1 v1.5; ECDH over Curve25519 and the NIST
/// curves with RFC 6637's KDF and the AES key wrap; X25519 and X448 with HKDF and the AES key
/// wrap), and made for a public key (`encrypt --to-key`). Every primitive is OpenSSL's.
package struct OpenPGPPKESK: Sendable {
    package let version: UInt8
    /// The recipient's key ID (all zeros: hidden, any key may try).
    package let keyID: [UInt8]
    /// v6: the recipient's fingerprint (nil: hidden).
    let fingerprint: [UInt8]?
    package let algorithm: UInt8
    /// The algorithm's fields.
    let fields: [UInt8]

    /// Whether the recipient is hidden (a wildcard key ID).
    package var isHidden: Bool { keyID.allSatisfy { $0 == 0 } }

    package var keyIDHex: String { OpenPGPKeyFile.hex(keyID) }

    static func parse(_ bytes: [UInt8]) throws(KindError) -> OpenPGPPKESK {
        let malformed = KindError.header("malformed public-key session key packet")
        guard let version = bytes.first else { throw malformed }
        switch version {
        case 3:
            guard bytes.count >= 11 else { throw malformed }
            return OpenPGPPKESK(version: 3, keyID: Array(bytes[1..<9]), fingerprint: nil, algorithm: bytes[9], fields: Array(bytes[10...]))
        case 6:
            guard bytes.count >= 3 else { throw malformed }
            let count = Int(bytes[1])
            guard bytes.count >= 2 + count + 2 else { throw malformed }
            var keyID = [UInt8](repeating: 0, count: 8)
            var fingerprint: [UInt8]?
            if count > 0 {
                let keyVersion = bytes[2]
                let fp = Array(bytes[3..<(2 + count)])
                guard (keyVersion == 6 && fp.count == 32) || (keyVersion == 4 && fp.count == 20) else { throw malformed }
                fingerprint = fp
                keyID = keyVersion == 6 ? Array(fp.prefix(8)) : Array(fp.suffix(8))
            }
            return OpenPGPPKESK(version: 6, keyID: keyID, fingerprint: fingerprint, algorithm: bytes[2 + count], fields: Array(bytes[(3 + count)...]))
        default:
            throw .header("unknown public-key session key packet version \(version)")
        }
    }

    /// Whether `key` may open this packet: its key ID (or fingerprint) is the packet's, or the
    /// packet hides its recipient and the algorithms agree.
    func isFor(_ key: OpenPGPKey) -> Bool {
        guard key.algorithm == algorithm || (algorithm <= 2 && key.algorithm <= 2) else { return false }
        if let fingerprint { return fingerprint == key.fingerprint }
        return isHidden || keyID == key.keyID
    }

    /// The session key this packet holds for `key` (its secret fields present): the cipher id
    /// (v3; nil for v6) and the key. Nil when the key does not open it (a wrong key, a
    /// checksum or key wrap that fails: the caller cannot tell these apart, nor should it).
    /// `keySize`: v6, the SEIPD v2 cipher's key size (nil for v3).
    func open(with key: OpenPGPKey, keySize: Int?) -> (cipher: UInt8?, key: SecretBytes)? {
        guard let secret = key.secret else { return nil }
        var reader = OpenPGPFieldReader(fields)
        switch (algorithm, key.fields) {
        case (1, .rsa(let n, let e)), (2, .rsa(let n, let e)):
            guard let c = reader.mpi(), reader.atEnd else { return nil }
            var secrets = OpenPGPFieldReader(secret.withUnsafeBytes { Array($0) })
            defer { secrets.wipe() }
            guard var dBytes = secrets.mpi() else { return nil }
            defer { Crypto.cleanse(&dBytes) }
            // v3: cipher, key, checksum; v6: key, checksum. AES-256's size where unknown.
            let expected = version == 3 ? 1 + 32 + 2 : (keySize ?? 32) + 2
            guard let m = OpenPGPKeyPrimitives.rsaDecryptPKCS1(n: n, e: e, d: SecretBytes(dBytes), ciphertext: c, length: expected) else { return nil }
            return Self.checked(m, withCipher: version == 3)
        case (18, .ecdh(let curve, let point, let hash, let cipherID)):
            guard let ephemeral = reader.mpi(), let wrappedLength = reader.byte(), let wrapped = reader.bytes(Int(wrappedLength)), reader.atEnd else { return nil }
            var secrets = OpenPGPFieldReader(secret.withUnsafeBytes { Array($0) })
            defer { secrets.wipe() }
            guard var scalar = secrets.mpi() else { return nil }
            defer { Crypto.cleanse(&scalar) }
            let shared: SecretBytes?
            switch curve {
            case .curve25519:
                // The MPI holds the native (little-endian) key reversed.
                guard ephemeral.count == 33, ephemeral[0] == 0x40, scalar.count <= 32 else { return nil }
                let native = SecretBytes(count: 32) { out in
                    for (index, byte) in scalar.reversed().enumerated() { out[index] = byte }
                }
                shared = OpenPGPKeyPrimitives.montgomery(privateKey: native, peer: Array(ephemeral[1...]), x448: false)
            default:
                guard let nist = curve.nist, scalar.count <= nist.fieldSize else { return nil }
                let padded = SecretBytes(count: nist.fieldSize) { out in
                    let start = nist.fieldSize - scalar.count
                    for (index, byte) in scalar.enumerated() { out[start + index] = byte }
                }
                shared = OpenPGPKeyPrimitives.ecdh(nist, privateScalar: padded, ownPublic: point, peer: ephemeral)
            }
            guard let shared, let kek = Self.ecdhKEK(shared: shared, curve: curve, hash: hash, cipher: cipherID, fingerprint: key.fingerprint),
                  let m = OpenPGPKeyPrimitives.aesUnwrap(kek: kek, wrapped: wrapped) else { return nil }
            // PKCS#5 padding to a multiple of 8 bytes.
            let pad = m.withUnsafeBytes { Int($0[$0.count - 1]) }
            let padOK = m.withUnsafeBytes { raw in pad >= 1 && pad <= 8 && pad <= raw.count && raw.suffix(pad).allSatisfy { Int($0) == pad } }
            guard padOK else { return nil }
            return Self.checked(m.slice(0..<(m.count - pad)), withCipher: version == 3)
        case (25, .x25519(let own)), (26, .x448(let own)):
            let x448 = algorithm == 26
            let size = x448 ? 56 : 32
            guard let ephemeral = reader.bytes(size), let length = reader.byte(), var rest = reader.bytes(Int(length)), reader.atEnd else { return nil }
            var cipher: UInt8?
            if version == 3 {
                guard !rest.isEmpty else { return nil }
                cipher = rest.removeFirst()
            }
            guard let shared = OpenPGPKeyPrimitives.montgomery(privateKey: secret, peer: ephemeral, x448: x448) else { return nil }
            let ikm = SecretBytes(count: 3 * size) { out in
                ephemeral.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: size) }
                own.withUnsafeBytes { (out.baseAddress! + size).copyMemory(from: $0.baseAddress!, byteCount: size) }
                shared.withUnsafeBytes { (out.baseAddress! + 2 * size).copyMemory(from: $0.baseAddress!, byteCount: size) }
            }
            let kek = OpenPGPKeyPrimitives.hkdf(sha512: x448, key: ikm, info: Array((x448 ? "OpenPGP X448" : "OpenPGP X25519").utf8), length: x448 ? 32 : 16)
            guard let m = OpenPGPKeyPrimitives.aesUnwrap(kek: kek, wrapped: rest) else { return nil }
            return (cipher, m)
        default:
            return nil
        }
    }

    /// The session key of `m` (v3: a cipher octet first) after its 2-byte checksum, checked.
    private static func checked(_ m: SecretBytes, withCipher: Bool) -> (cipher: UInt8?, key: SecretBytes)? {
        let start = withCipher ? 1 : 0
        guard m.count >= start + 16 + 2 else { return nil }
        let key = m.slice(start..<(m.count - 2))
        let (sum, expected) = m.withUnsafeBytes { raw in
            (raw[start..<(raw.count - 2)].reduce(UInt16(0)) { $0 &+ UInt16($1) }, UInt16(raw[raw.count - 2]) << 8 | UInt16(raw[raw.count - 1]))
        }
        guard sum == expected else { return nil }
        return (withCipher ? m.withUnsafeBytes { $0[0] } : nil, key)
    }

    /// RFC 6637 / RFC 9580 11.5's KDF: the hash of 00 00 00 01, the shared secret and the
    /// parameters (curve OID, algorithm 18, KDF fields, "Anonymous Sender    ", fingerprint),
    /// cut to the key-wrap cipher's key size.
    static func ecdhKEK(shared: SecretBytes, curve: OpenPGPCurve, hash: UInt8, cipher: UInt8, fingerprint: [UInt8]) -> SecretBytes? {
        guard let name = OpenPGPHash.openSSLName(hash), ["SHA256", "SHA384", "SHA512"].contains(name), let digest = OpenPGPDigest(name) else { return nil }
        let size = OpenPGPCipher(cipher).keySize
        guard [16, 24, 32].contains(size) else { return nil }
        let oid = curve.oid
        let param: [UInt8] = [UInt8(oid.count)] + oid + [18, 3, 1, hash, cipher] + Array("Anonymous Sender    ".utf8) + fingerprint
        digest.update([0, 0, 0, 1] as [UInt8])
        digest.update(shared)
        digest.update(param)
        var out = digest.finish()
        defer { Crypto.cleanse(&out) }
        return SecretBytes(out.prefix(size))
    }
}

extension OpenPGPKind {
    /// The PKESKs that go with SEIPD `seipd` (v3 with v1, v6 with v2). ElGamal packets (OpenSSL
    /// has no ElGamal) and unknown algorithms are left out; a message to those alone, with no
    /// password packet beside them, is refused with the one line that says so.
    static func fittingPKESKs(_ pkesks: [OpenPGPPKESK], seipd: UInt8, passwords: Bool) throws(KindError) -> [OpenPGPPKESK] {
        let fitting = pkesks.filter { $0.version == (seipd == 1 ? 3 : 6) }
        let usable = fitting.filter { [1, 2, 18, 25, 26].contains($0.algorithm) }
        if usable.isEmpty && !passwords, let first = fitting.first {
            let what = first.algorithm == 16 ? "ElGamal, which OpenSSL does not have" : OpenPGPKeyAlgorithm.name(first.algorithm) + ", which rwsecret does not read"
            throw .refused("encrypted to key \(first.keyIDHex) of \(what): not supported (use gpg -d)")
        }
        return usable
    }

    /// The key IDs a message is encrypted to (for the line that says no identity holds them).
    static func describeKeys(_ header: Header) -> [String] {
        header.pkesks.map { $0.isHidden ? "(hidden)" : $0.keyIDHex }
    }

    /// Tries an OpenPGP secret key on the message's PKESKs: no key derivation, an RSA or ECDH
    /// operation per packet addressed to one of its encryption keys (or hiding its recipient).
    /// Not applicable when no packet is for it.
    static func unlock(_ header: Header, key: OpenPGPTransferableKey) throws(KindError) -> Unlock<SessionKey> {
        var applicable = false
        for pkesk in header.pkesks {
            for candidate in key.decryptionKeys where pkesk.isFor(candidate) {
                applicable = true
                guard let opened = pkesk.open(with: candidate, keySize: header.v2?.cipher.keySize) else { continue }
                if let v2 = header.v2 {
                    guard opened.key.count == v2.cipher.keySize else { continue }
                    return .unlocked(SessionKey(cipher: v2.cipher, key: opened.key))
                }
                guard let id = opened.cipher else { continue }
                let cipher = OpenPGPCipher(id)
                if case .unsupported = cipher, !pkesk.isHidden {
                    throw .refused("a session key for the \(cipher.name) cipher: not in OpenSSL, not supported (use gpg -d)")
                }
                guard cipher.keySize == opened.key.count else { continue }
                let session = SessionKey(cipher: cipher, key: opened.key)
                if quickCheck(header.prefix, session) { return .unlocked(session) }
            }
        }
        return applicable ? .wrongCredential : .notApplicable
    }
}
