/// A signature of a signed-and-encrypted message (`gpg -se`, `sq encrypt --signer`, `rnp -es`;
/// RFC 9580 5.2 and 5.4): one-pass signature packets before the literal data, the signature
/// packets after it, all inside the encrypted data.
///
/// The literal data is hashed as it is written (`OpenPGPSignatureHasher`, one per one-pass
/// packet: binary, or text with its line ends made CRLF), then each signature packet's hashed
/// part and trailer; what comes out is kept with the signature's values. The check itself
/// (``checked(with:)``) needs the signer's public key, which the caller has (its identities,
/// `--signer-key` files), and runs only on a message that has verified: a kind returns its
/// literal data only then.
///
/// A program reads one from an opened message's ``LiteralData/signatures``: who signed it
/// (``issuer``) and what the check found (``outcome``). It cannot make one.
public struct OpenPGPSignature: Sendable, Equatable {
    /// What the check of a signature found.
    public enum Outcome: Sendable, Equatable {
        /// The key is known and the signature holds.
        case verified
        /// The key is known and the signature does not hold over this message.
        case bad
        /// No key given has this issuer (or none was checked yet).
        case unknownKey
        /// The signature cannot be checked here: why (an algorithm OpenSSL has not, a v3 signature…).
        case unchecked(String)
    }

    /// Who signed: the Issuer Fingerprint subpacket's fingerprint (40 hex digits for a v4 key,
    /// 64 for a v6 one), else the issuer's key ID (16), in upper-case hex.
    public let issuer: String
    let fingerprint: [UInt8]?
    let keyID: [UInt8]?
    let publicKeyAlgorithm: UInt8
    let hashAlgorithm: UInt8
    /// The hash of the data and the signature's hashed part and trailer.
    let digest: [UInt8]
    /// The signature's left 16 bits of the hash, as it says them.
    let left16: [UInt8]
    /// The algorithm's signature fields (MPIs, or native bytes for Ed25519 / Ed448).
    let values: [UInt8]
    /// What the check found (``Outcome/unknownKey`` until the signature is checked).
    public private(set) var outcome: Outcome

    /// This signature checked with the signers' keys a program knows: the key of
    /// `certificates` (a primary key or a subkey) whose fingerprint, or else key ID, is the
    /// ``issuer``'s checks it, and ``outcome`` says what it found: ``Outcome/verified``,
    /// ``Outcome/bad``, or ``Outcome/unknownKey`` when no key is the issuer's. A signature
    /// that cannot be checked here keeps its ``Outcome/unchecked(_:)``.
    ///
    /// The signatures of ``LiteralData/signatures`` come from a message that has verified;
    /// check them there. An OpenPGP secret key checks signatures too: ``OpenPGP/Identity/certificate``.
    ///
    /// ```swift
    /// let signers = try OpenPGP.Certificate.parse(publicKeyFileBytes)
    /// for signature in opened.literal?.signatures ?? [] {
    ///     print(signature.issuer, signature.checked(with: signers).outcome)
    /// }
    /// ```
    public func checked(with certificates: [OpenPGP.Certificate]) -> OpenPGPSignature {
        if case .unchecked = outcome { return self }
        var copy = self
        let all = certificates.flatMap(\.key.keys)
        let key = all.first { key in
            if let fingerprint { return key.fingerprint == fingerprint }
            return keyID == key.keyID
        }
        guard let key else {
            copy.outcome = .unknownKey
            return copy
        }
        copy.outcome = verify(key) ? .verified : .bad
        return copy
    }

    /// Whether the signature holds for `key`.
    private func verify(_ key: OpenPGPKey) -> Bool {
        guard key.algorithm == publicKeyAlgorithm || (publicKeyAlgorithm <= 3 && key.algorithm <= 3) else { return false }
        // The quick check first: a signature over another message is bad whatever its values.
        guard digest.count >= 2, Array(digest.prefix(2)) == left16 else { return false }
        var values = OpenPGPFieldReader(self.values)
        var fields = OpenPGPFieldReader(key.publicBody)
        fields.skip(key.version == 4 ? 6 : 10)  // version, creation time, algorithm (v6: and the fields' length)
        switch publicKeyAlgorithm {
        case 1, 3:
            guard case .rsa(let n, let e) = key.fields, let name = OpenPGPHash.openSSLName(hashAlgorithm),
                  let s = values.mpi(), values.atEnd else { return false }
            return OpenPGPKeyPrimitives.rsaVerifyPKCS1(n: n, e: e, hash: name, digest: digest, signature: s)
        case 19:
            guard let oid = fields.oid(), let point = fields.mpi(), let curve = OpenPGPCurve(oid: oid).nist,
                  let r = values.mpi(), let s = values.mpi(), values.atEnd else { return false }
            return OpenPGPKeyPrimitives.ecdsaVerify(curve, point: point, digest: digest, r: r, s: s)
        case 22:
            // EdDSA in its v4 form: the Ed25519 OID, the point 0x40-prefixed, r and s as MPIs.
            guard fields.oid() == OpenPGPSignature.ed25519OID, let point = fields.mpi(), point.count == 33, point[0] == 0x40,
                  let r = values.mpi(), let s = values.mpi(), values.atEnd, r.count <= 32, s.count <= 32 else { return false }
            let signature = [UInt8](repeating: 0, count: 32 - r.count) + r + [UInt8](repeating: 0, count: 32 - s.count) + s
            return OpenPGPKeyPrimitives.eddsaVerify(ed448: false, publicKey: Array(point[1...]), message: digest, signature: signature)
        case 27, 28:
            let ed448 = publicKeyAlgorithm == 28
            guard let publicKey = fields.bytes(ed448 ? 57 : 32), let signature = values.bytes(ed448 ? 114 : 64), values.atEnd else { return false }
            return OpenPGPKeyPrimitives.eddsaVerify(ed448: ed448, publicKey: publicKey, message: digest, signature: signature)
        default:
            return false
        }
    }

    /// The signatures of one message that are hashed and kept: every writer makes one or two;
    /// more would each hash the whole literal data again (before the message has verified).
    static let maxSignatures = 16

    /// The Ed25519 OID of v4 EdDSA keys (1.3.6.1.4.1.11591.15.1).
    static let ed25519OID: [UInt8] = [0x2B, 0x06, 0x01, 0x04, 0x01, 0xDA, 0x47, 0x0F, 0x01]

    /// The public-key algorithms checked here.
    static let checkable: Set<UInt8> = [1, 3, 19, 22, 27, 28]

    /// A signature that cannot be checked (one line says why), or whose packet is missing.
    static func unchecked(issuer: String, _ why: String) -> OpenPGPSignature {
        OpenPGPSignature(issuer: issuer, fingerprint: nil, keyID: nil, publicKeyAlgorithm: 0, hashAlgorithm: 0, digest: [], left16: [],
                         values: [], outcome: .unchecked(why))
    }

    /// A signature packet after the literal data, its hash finished with `hashers`' (the first
    /// unused one of its type, hash and salt). Nil for a packet that is not a signature over
    /// the data (another type), which is left alone.
    static func parse(_ body: [UInt8], hashers: [OpenPGPSignatureHasher]) -> OpenPGPSignature? {
        guard let version = body.first else { return nil }
        guard version == 4 || version == 6 else {
            guard version == 3, body.count >= 19, body[2] <= 1 else { return nil }
            return unchecked(issuer: OpenPGPKeyFile.hex(Array(body[7..<15])), "a v3 signature, not checked")
        }
        var reader = OpenPGPFieldReader(body)
        reader.skip(1)
        guard let type = reader.byte(), let algorithm = reader.byte(), let hash = reader.byte(), type <= 1 else { return nil }
        let lengthSize = version == 6 ? 4 : 2
        guard let hashedLength = reader.bytes(lengthSize)?.reduce(0, { $0 << 8 | Int($1) }), let hashed = reader.bytes(hashedLength) else { return nil }
        let hashedEnd = reader.offset
        guard let unhashedLength = reader.bytes(lengthSize)?.reduce(0, { $0 << 8 | Int($1) }), let unhashed = reader.bytes(unhashedLength),
              let left16 = reader.bytes(2) else { return nil }
        var salt: [UInt8] = []
        if version == 6 {
            guard let size = reader.byte(), let bytes = reader.bytes(Int(size)) else { return nil }
            salt = bytes
        }
        let values = Array(body[reader.offset...])
        // Who signed: the Issuer Fingerprint subpacket (33) where there is one, else Issuer (16).
        let subpackets = OpenPGPSignatureInfo.subpackets(hashed[...]) + OpenPGPSignatureInfo.subpackets(unhashed[...])
        var fingerprint = subpackets.first { $0.0 & 0x7f == 33 && ($0.1.count == 21 || $0.1.count == 33) }.map { Array($0.1.dropFirst()) }
        var keyID = subpackets.first { $0.0 & 0x7f == 16 && $0.1.count == 8 }?.1
        guard let hasher = hashers.first(where: { !$0.used && $0.type == type && $0.hash == hash && $0.salt == salt && $0.version == version }) else {
            let issuer = fingerprint ?? keyID
            return unchecked(issuer: issuer.map(OpenPGPKeyFile.hex) ?? "an unnamed key", "no one-pass signature packet of its hash before the data, not checked")
        }
        if keyID == nil, fingerprint == nil {
            // Neither subpacket: the one-pass packet's key ID (v3) or fingerprint (v6).
            if hasher.issuer.count == 8 { keyID = hasher.issuer } else { fingerprint = hasher.issuer }
        }
        let issuer = (fingerprint ?? keyID).map(OpenPGPKeyFile.hex) ?? "an unnamed key"
        // RFC 9580 9.5: MD5, SHA-1 and RIPEMD-160 signatures are not to be validated (collisions).
        if [1, 2, 3].contains(hash) {
            return unchecked(issuer: issuer, "its hash, \(OpenPGPHash.openSSLName(hash) ?? "\(hash)"), is one RFC 9580 forbids, not checked")
        }
        guard let digest = hasher.finish(hashedPart: Array(body[0..<hashedEnd])) else {
            return unchecked(issuer: issuer, "its hash (algorithm \(hash)) is not in this OpenSSL, not checked")
        }
        guard checkable.contains(algorithm) else {
            return unchecked(issuer: issuer, "a signature of \(OpenPGPKeyAlgorithm.name(algorithm)), not checked")
        }
        return OpenPGPSignature(issuer: issuer, fingerprint: fingerprint, keyID: fingerprint == nil ? keyID : nil, publicKeyAlgorithm: algorithm,
                                hashAlgorithm: hash, digest: digest, left16: left16, values: values, outcome: .unknownKey)
    }
}

/// The hash of the literal data for one one-pass signature packet (RFC 9580 5.4): its
/// signature type (0: binary, the bytes as they are; 1: text, every line end made CRLF), hash
/// algorithm and, v6, salt (hashed first). Finished by its signature packet.
final class OpenPGPSignatureHasher {
    let version: UInt8
    let type: UInt8
    let hash: UInt8
    let salt: [UInt8]
    /// The one-pass packet's key ID (v3) or fingerprint (v6).
    let issuer: [UInt8]
    private let digest: OpenPGPDigest?
    private(set) var used = false
    /// Text: whether the last byte hashed was a CR.
    private var afterCR = false

    private init(version: UInt8, type: UInt8, hash: UInt8, salt: [UInt8], issuer: [UInt8]) {
        self.version = version
        self.type = type
        self.hash = hash
        self.salt = salt
        self.issuer = issuer
        digest = OpenPGPHash.openSSLName(hash).flatMap(OpenPGPDigest.init)
        if let digest, !salt.isEmpty { digest.update(salt) }
    }

    /// A one-pass signature packet's hasher: v3 (for v4 signatures; the key ID) or v6 (the
    /// salt and the fingerprint). Nil for anything else, or a type other than binary or text.
    static func onePass(_ body: [UInt8]) -> OpenPGPSignatureHasher? {
        guard let version = body.first, body.count >= 4, body[1] <= 1 else { return nil }
        switch version {
        case 3:
            guard body.count == 13 else { return nil }
            return OpenPGPSignatureHasher(version: 4, type: body[1], hash: body[2], salt: [], issuer: Array(body[4..<12]))
        case 6:
            guard body.count >= 5 else { return nil }
            let saltLength = Int(body[4])
            guard body.count == 5 + saltLength + 32 + 1 else { return nil }
            return OpenPGPSignatureHasher(version: 6, type: body[1], hash: body[2], salt: Array(body[5..<(5 + saltLength)]),
                                          issuer: Array(body[(5 + saltLength)..<(5 + saltLength + 32)]))
        default:
            return nil
        }
    }

    /// The issuer as `signed by` says it when no signature packet follows.
    var issuerHex: String { OpenPGPKeyFile.hex(issuer) }

    /// Literal data as it is in the packet.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let digest, !used, bytes.count > 0 else { return }
        guard type == 1 else { return digest.update(bytes) }
        // Text: a LF not after a CR is hashed as CRLF.
        var start = 0
        for i in 0..<bytes.count where bytes[i] == 0x0a {
            let previousCR = i > 0 ? bytes[i - 1] == 0x0d : afterCR
            if !previousCR {
                digest.update(UnsafeRawBufferPointer(rebasing: bytes[start..<i]))
                digest.update([0x0d] as [UInt8])
                start = i
            }
        }
        digest.update(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        afterCR = bytes[bytes.count - 1] == 0x0d
    }

    /// The digest once the signature's hashed part (version to hashed subpackets) and its
    /// trailer (version, 0xFF, the part's length in 4 bytes) are hashed; nil without the hash.
    func finish(hashedPart: [UInt8]) -> [UInt8]? {
        guard let digest, !used else { return nil }
        used = true
        let n = hashedPart.count
        digest.update(hashedPart)
        digest.update([version, 0xFF, UInt8(n >> 24 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)])
        return digest.finish()
    }
}
