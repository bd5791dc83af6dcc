/// OpenPGP keys (RFC 9580 5.5, 10.1): transferable secret and public keys, armored
/// (`-----BEGIN PGP PRIVATE KEY BLOCK-----`) or binary, v4 and v6, each key's public fields,
/// fingerprint and key ID, and its secret fields read out of their protection (S2K usage 254:
/// CFB with a SHA-1 check; 253: AEAD; 255: CFB with a checksum) with the S2Ks of messages.

/// Why a key file was refused. Facts only: no secret in any description.
package enum OpenPGPKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    /// A public key where a secret key was needed (or the reverse).
    case wrongType(String)
    /// A protected key and no passphrase to read it with.
    case needsPassphrase
    case wrongPassphrase
    case unsupported(String)
    case noEncryptionKey(String)

    package var description: String {
        switch self {
        case .malformed(let why): "not a valid OpenPGP key: \(why)"
        case .wrongType(let why): why
        case .needsPassphrase: "an OpenPGP secret key protected by a passphrase, and no passphrase given"
        case .wrongPassphrase: "wrong passphrase for the OpenPGP secret key"
        case .unsupported(let why): why
        case .noEncryptionKey(let why): why
        }
    }
}

/// OpenPGP's public-key algorithms (RFC 9580 9.1).
package enum OpenPGPKeyAlgorithm {
    static func name(_ id: UInt8) -> String {
        switch id {
        case 1, 2, 3: "RSA"
        case 16: "ElGamal"
        case 17: "DSA"
        case 18: "ECDH"
        case 19: "ECDSA"
        case 22: "EdDSA"
        case 25: "X25519"
        case 26: "X448"
        case 27: "Ed25519"
        case 28: "Ed448"
        default: "public-key algorithm \(id)"
        }
    }

    /// Whether keys of this algorithm can encrypt (ElGamal can, but OpenSSL has none).
    static func canEncrypt(_ id: UInt8) -> Bool { [1, 2, 16, 18, 25, 26].contains(id) }
}

/// The elliptic curves of ECDH keys, by their OIDs (RFC 9580 9.2).
package enum OpenPGPCurve: Sendable, Equatable {
    case curve25519, p256, p384, p521
    case other([UInt8])

    static let oids: [(OpenPGPCurve, [UInt8])] = [
        (.curve25519, [0x2B, 0x06, 0x01, 0x04, 0x01, 0x97, 0x55, 0x01, 0x05, 0x01]),
        (.p256, [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]),
        (.p384, [0x2B, 0x81, 0x04, 0x00, 0x22]),
        (.p521, [0x2B, 0x81, 0x04, 0x00, 0x23]),
    ]

    init(oid: [UInt8]) {
        self = Self.oids.first { $0.1 == oid }?.0 ?? .other(oid)
    }

    var oid: [UInt8] {
        if case .other(let oid) = self { return oid }
        return Self.oids.first { $0.0 == self }!.1
    }

    var nist: OpenPGPKeyPrimitives.Curve? {
        switch self {
        case .p256: .p256
        case .p384: .p384
        case .p521: .p521
        default: nil
        }
    }

    var name: String {
        switch self {
        case .curve25519: "Curve25519"
        case .p256: "NIST P-256"
        case .p384: "NIST P-384"
        case .p521: "NIST P-521"
        case .other(let oid): "the curve of OID " + oid.map { String($0, radix: 16) }.joined(separator: ".")
        }
    }
}

/// A key's public fields, as far as encrypting to it or decrypting with it needs.
package enum OpenPGPPublicFields: Sendable {
    case rsa(n: [UInt8], e: [UInt8])
    /// ECDH (RFC 9580 5.5.5.6): the curve, the point (0x40-prefixed for Curve25519), the KDF's
    /// hash and key-wrap cipher.
    case ecdh(curve: OpenPGPCurve, point: [UInt8], hash: UInt8, cipher: UInt8)
    case x25519([UInt8])
    case x448([UInt8])
    /// Signing-only and other keys: not used here.
    case other
}

/// One key packet: a primary key or a subkey, public or secret.
package final class OpenPGPKey: @unchecked Sendable {
    package let version: UInt8
    package let algorithm: UInt8
    package let isSubkey: Bool
    /// The creation time (seconds since 1970).
    package let created: UInt32
    /// The packet body up to the end of the public fields (what the fingerprint hashes).
    let publicBody: [UInt8]
    package let fields: OpenPGPPublicFields
    package let fingerprint: [UInt8]
    /// The secret fields in the clear (nil: a public key, or a secret key stub).
    let secret: SecretBytes?
    /// The key flags of its binding or self-signature (nil: none said).
    package internal(set) var flags: UInt8?
    /// Seconds after creation it expires (0: never), from its latest binding or self-signature.
    package internal(set) var expiry: UInt32 = 0
    package internal(set) var revoked = false
    /// The creation time of the self-signature or binding signature that set `flags` and
    /// `expiry` (the newest one counts, as gpg reads a renewed key).
    var selfSignatureTime: UInt32?

    init(version: UInt8, algorithm: UInt8, isSubkey: Bool, created: UInt32, publicBody: [UInt8], fields: OpenPGPPublicFields, secret: SecretBytes?) {
        self.version = version
        self.algorithm = algorithm
        self.isSubkey = isSubkey
        self.created = created
        self.publicBody = publicBody
        self.fields = fields
        self.secret = secret
        if version == 6 {
            let n = publicBody.count
            fingerprint = KindPrimitives.sha256([0x9B, UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + publicBody)
        } else {
            let digest = OpenPGPDigest("SHA1")!
            digest.update([0x99, UInt8(publicBody.count >> 8 & 0xff), UInt8(publicBody.count & 0xff)] + publicBody)
            fingerprint = digest.finish()
        }
    }

    /// The key ID: v4, the fingerprint's last 8 bytes; v6, its first 8.
    package var keyID: [UInt8] { version == 6 ? Array(fingerprint.prefix(8)) : Array(fingerprint.suffix(8)) }

    /// Whether this key is for encryption: its flags say so, or (none said) its algorithm can.
    package var isForEncryption: Bool {
        guard OpenPGPKeyAlgorithm.canEncrypt(algorithm) else { return false }
        if let flags { return flags & 0x0C != 0 }
        return true
    }

    package var hasSecret: Bool { secret != nil }
}

/// A transferable key (RFC 9580 10.1, 10.2): a primary key, its user IDs, subkeys and
/// signatures; a secret one with its secret fields read.
package final class OpenPGPTransferableKey: @unchecked Sendable {
    package let primary: OpenPGPKey
    package let subkeys: [OpenPGPKey]
    /// The first user ID (as the bytes say, UTF-8 read leniently); nil when it has none.
    package let userID: String?
    /// The key in binary form with every secret packet unprotected (S2K usage 0): what the
    /// store keeps, and what export writes for gpg --import. Nil for a public key.
    package let unprotected: SecretBytes?
    /// Whether any secret packet was protected by a passphrase.
    package let wasProtected: Bool

    init(primary: OpenPGPKey, subkeys: [OpenPGPKey], userID: String?, unprotected: SecretBytes?, wasProtected: Bool) {
        self.primary = primary
        self.subkeys = subkeys
        self.userID = userID
        self.unprotected = unprotected
        self.wasProtected = wasProtected
    }

    /// Every key (primary then subkeys).
    package var keys: [OpenPGPKey] { [primary] + subkeys }

    /// The keys for encryption with their secret fields present.
    package var decryptionKeys: [OpenPGPKey] { keys.filter { $0.isForEncryption && $0.hasSecret } }

    /// The primary key's fingerprint in upper-case hex.
    package var fingerprintHex: String { OpenPGPKeyFile.hex(primary.fingerprint) }

    /// Whether `bytes` look like an OpenPGP key file (armored key block, or a key packet first).
    package static func looksLikeKey(_ bytes: [UInt8]) -> Bool {
        let text = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
        if text.starts(with: "-----BEGIN PGP PRIVATE KEY BLOCK-----".utf8) || text.starts(with: "-----BEGIN PGP PUBLIC KEY BLOCK-----".utf8) { return true }
        guard let first = bytes.first, first & 0x80 != 0 else { return false }
        let tag = first & 0x40 != 0 ? first & 0x3f : (first >> 2) & 0x0f
        return tag == 5 || tag == 6
    }

    /// The keys in a key file: armored or binary, one or more transferable keys. Secret keys
    /// are read with `passphrase` (asked at most once, when a protected packet is met); with
    /// `secret` false, public keys are read (and the public parts of secret ones).
    package static func parse(_ bytes: [UInt8], secret: Bool, passphrase: (() throws(OpenPGPKeyError) -> SecretBytes)? = nil) throws(OpenPGPKeyError) -> [OpenPGPTransferableKey] {
        var binary = try OpenPGPKeyFile.dearmor(bytes)
        defer { Crypto.cleanse(&binary) }
        let packets = try OpenPGPKeyFile.packets(binary)
        defer { for packet in packets { Crypto.cleanseShared(packet.body) } }
        var asked: SecretBytes?
        let cachedPassphrase: () throws(OpenPGPKeyError) -> SecretBytes = { () throws(OpenPGPKeyError) -> SecretBytes in
            if let asked { return asked }
            guard let passphrase else { throw .needsPassphrase }
            let value = try passphrase()
            asked = value
            return value
        }
        var keys: [OpenPGPTransferableKey] = []
        var index = 0
        while index < packets.count {
            var end = index + 1
            while end < packets.count && packets[end].tag != 5 && packets[end].tag != 6 { end += 1 }
            keys.append(try parseOne(packets[index..<end], secret: secret, passphrase: cachedPassphrase))
            index = end
        }
        guard !keys.isEmpty else { throw .malformed("no key in it") }
        return keys
    }

    private static func parseOne(_ packets: ArraySlice<(tag: UInt8, body: [UInt8])>, secret: Bool,
                                 passphrase: () throws(OpenPGPKeyError) -> SecretBytes) throws(OpenPGPKeyError) -> OpenPGPTransferableKey {
        guard let first = packets.first else { throw .malformed("empty") }
        switch first.tag {
        case 5: break
        case 6: if secret { throw .wrongType("an OpenPGP public key, not a secret key (export it with gpg --export-secret-keys)") }
        default: throw .malformed("it begins with packet tag \(first.tag), not a key")
        }
        // Room for every packet at once: a growing array would leave its old storage unwiped.
        var out: [UInt8] = []
        out.reserveCapacity(packets.reduce(0) { $0 + $1.body.count + 6 })
        defer { Crypto.cleanse(&out) }
        var primary: OpenPGPKey?
        var subkeys: [OpenPGPKey] = []
        var userID: String?
        var wasProtected = false
        /// The key the signatures that follow belong to (nil: the primary, for user IDs).
        var current: OpenPGPKey?
        for packet in packets {
            switch packet.tag {
            case 5, 6, 7, 14:
                let isSubkey = packet.tag == 7 || packet.tag == 14
                guard isSubkey == (primary != nil) else { throw .malformed(isSubkey ? "a subkey before its primary key" : "two primary keys") }
                let parsed = try OpenPGPKeyPacket.parse(packet.body, tag: packet.tag, readSecret: secret, passphrase: passphrase)
                wasProtected = wasProtected || parsed.wasProtected
                if isSubkey { subkeys.append(parsed.key) } else { primary = parsed.key }
                current = parsed.key
                if let body = parsed.unprotectedBody {
                    body.withUnsafeBytes { OpenPGPKeyFile.appendPacket(tag: packet.tag, body: $0, to: &out) }
                } else {
                    packet.body.withUnsafeBytes { OpenPGPKeyFile.appendPacket(tag: packet.tag, body: $0, to: &out) }
                }
                continue
            case 13:
                if userID == nil { userID = String(decoding: packet.body, as: UTF8.self) }
                current = primary
            case 17:
                current = primary
            case 2:
                if let key = current ?? primary, key === primary || key.isSubkey {
                    OpenPGPSignatureInfo.apply(packet.body, to: key, primary: primary!)
                }
            case 12, 21, 10:
                continue  // trust, padding, marker: not kept
            default:
                break  // other packets are kept as they are
            }
            packet.body.withUnsafeBytes { OpenPGPKeyFile.appendPacket(tag: packet.tag, body: $0, to: &out) }
        }
        guard let primary else { throw .malformed("no primary key") }
        let isSecret = first.tag == 5
        return OpenPGPTransferableKey(primary: primary, subkeys: subkeys, userID: userID,
                                      unprotected: isSecret && secret ? SecretBytes(out) : nil, wasProtected: wasProtected)
    }
}

/// What a self-signature or binding signature says of a key: flags, expiry, revocation.
/// The signatures are not verified here: a key file is the user's own.
enum OpenPGPSignatureInfo {
    static func apply(_ body: [UInt8], to key: OpenPGPKey, primary: OpenPGPKey) {
        guard body.count >= 4, body[0] == 4 || body[0] == 6 else { return }
        let type = body[1]
        var offset = 4
        let hashedLength: Int
        if body[0] == 6 {
            guard body.count >= 8 else { return }
            hashedLength = body[4..<8].reduce(0) { $0 << 8 | Int($1) }
            offset = 8
        } else {
            guard body.count >= 6 else { return }
            hashedLength = Int(body[4]) << 8 | Int(body[5])
            offset = 6
        }
        guard body.count >= offset + hashedLength else { return }
        let subpackets = OpenPGPSignatureInfo.subpackets(body[offset..<(offset + hashedLength)])
        switch type {
        case 0x20 where key === primary, 0x28 where key !== primary:
            key.revoked = true
            return
        case 0x10, 0x11, 0x12, 0x13, 0x1F, 0x18:
            break
        default:
            return
        }
        if type == 0x18 && key === primary { return }
        // The newest self-signature says (a renewed key keeps its older ones): its flags, and
        // its expiry or none.
        let created = subpackets.first { $0.0 == 2 && $0.1.count == 4 }.map { $0.1.reduce(0) { $0 << 8 | UInt32($1) } } ?? 0
        if let newest = key.selfSignatureTime, created < newest { return }
        key.selfSignatureTime = created
        key.expiry = 0
        for (kind, data) in subpackets {
            switch kind {
            case 27: if let f = data.first { key.flags = f }
            case 9 where data.count == 4: key.expiry = data.reduce(0) { $0 << 8 | UInt32($1) }
            default: break
            }
        }
    }

    /// The subpackets of an area: (type without the critical bit, data).
    static func subpackets(_ area: ArraySlice<UInt8>) -> [(UInt8, [UInt8])] {
        var result: [(UInt8, [UInt8])] = []
        var i = area.startIndex
        while i < area.endIndex {
            let b0 = Int(area[i])
            var length: Int
            if b0 < 192 {
                length = b0
                i += 1
            } else if b0 < 255 {
                guard i + 1 < area.endIndex else { break }
                length = (b0 - 192) << 8 + Int(area[i + 1]) + 192
                i += 2
            } else {
                guard i + 4 < area.endIndex else { break }
                length = area[(i + 1)...(i + 4)].reduce(0) { $0 << 8 | Int($1) }
                i += 5
            }
            guard length >= 1, i + length <= area.endIndex else { break }
            result.append((area[i] & 0x7f, Array(area[(i + 1)..<(i + length)])))
            i += length
        }
        return result
    }
}

/// One key packet's fields (RFC 9580 5.5.2, 5.5.3).
enum OpenPGPKeyPacket {
    struct Parsed {
        let key: OpenPGPKey
        /// A secret packet's body rewritten with S2K usage 0 (nil when it was already so, or public).
        let unprotectedBody: SecretBytes?
        let wasProtected: Bool
    }

    static func parse(_ body: [UInt8], tag: UInt8, readSecret: Bool, passphrase: () throws(OpenPGPKeyError) -> SecretBytes) throws(OpenPGPKeyError) -> Parsed {
        var reader = OpenPGPFieldReader(body)
        guard let version = reader.byte() else { throw .malformed("an empty key packet") }
        guard version == 4 || version == 6 else {
            throw .unsupported("a v\(version) OpenPGP key: rwsecret reads v4 and v6 keys")
        }
        guard let created = reader.uint32(), let algorithm = reader.byte() else { throw .malformed("key packet cut short") }
        var declaredLength: Int?
        if version == 6 {
            guard let length = reader.uint32() else { throw .malformed("key packet cut short") }
            declaredLength = Int(length)
        }
        let fieldsStart = reader.offset
        let fields = try publicFields(&reader, algorithm: algorithm)
        if let declaredLength, reader.offset - fieldsStart != declaredLength { throw .malformed("its key material length does not match") }
        // A copy of its own: the caller wipes the packet bodies, and a slice of the whole body
        // would share their storage (a public key packet is all public body).
        let publicBody = body[0..<reader.offset].withUnsafeBytes { Array($0) }
        let isSecretPacket = tag == 5 || tag == 7
        let isSubkey = tag == 7 || tag == 14
        guard isSecretPacket && readSecret else {
            return Parsed(key: OpenPGPKey(version: version, algorithm: algorithm, isSubkey: isSubkey, created: created,
                                          publicBody: publicBody, fields: fields, secret: nil),
                          unprotectedBody: nil, wasProtected: false)
        }
        guard let usage = reader.byte() else { throw .malformed("secret key packet cut short") }
        var secret: SecretBytes?
        var wasProtected = false
        if usage == 0 {
            let start = reader.offset
            try secretFields(&reader, algorithm: algorithm)
            secret = SecretBytes(body[start..<reader.offset])
            if version == 4 {
                guard let sum = reader.uint16() else { throw .malformed("secret key checksum missing") }
                guard OpenPGPKeyFile.checksum(secret!) == sum else { throw .malformed("secret key checksum mismatch") }
            }
            guard reader.atEnd else { throw .malformed("data after the secret key fields") }
        } else if usage == 253 || usage == 254 || usage == 255 {
            wasProtected = true
            secret = try unprotect(body, reader: &reader, version: version, usage: usage, tag: tag, algorithm: algorithm,
                                   publicBody: publicBody, passphrase: passphrase)
        } else {
            throw .unsupported("a secret key protected by a bare cipher (S2K usage \(usage)), an old form rwsecret does not read: export it again with gpg")
        }
        let key = OpenPGPKey(version: version, algorithm: algorithm, isSubkey: isSubkey, created: created, publicBody: publicBody, fields: fields, secret: secret)
        guard wasProtected else { return Parsed(key: key, unprotectedBody: nil, wasProtected: false) }
        if let secret {
            // publicBody, usage 0, the fields, and (v4) their checksum.
            let sum = OpenPGPKeyFile.checksum(secret)
            let rewritten = SecretBytes(count: publicBody.count + 1 + secret.count + (version == 4 ? 2 : 0)) { out in
                publicBody.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: publicBody.count) }
                out[publicBody.count] = 0
                secret.withUnsafeBytes { (out.baseAddress! + publicBody.count + 1).copyMemory(from: $0.baseAddress!, byteCount: secret.count) }
                if version == 4 {
                    out[out.count - 2] = UInt8(sum >> 8)
                    out[out.count - 1] = UInt8(sum & 0xff)
                }
            }
            return Parsed(key: key, unprotectedBody: rewritten, wasProtected: true)
        }
        return Parsed(key: key, unprotectedBody: nil, wasProtected: false)
    }

    /// Reads a protected secret key's fields: nil for a GnuPG stub (the secret is elsewhere).
    private static func unprotect(_ body: [UInt8], reader: inout OpenPGPFieldReader, version: UInt8, usage: UInt8, tag: UInt8, algorithm: UInt8,
                                  publicBody: [UInt8], passphrase: () throws(OpenPGPKeyError) -> SecretBytes) throws(OpenPGPKeyError) -> SecretBytes? {
        if version == 6 {
            guard reader.byte() != nil else { throw .malformed("secret key packet cut short") }  // the count of the next fields
        }
        guard let cipherID = reader.byte() else { throw .malformed("secret key packet cut short") }
        let cipher = OpenPGPCipher(cipherID)
        var mode: OpenPGPAEADMode?
        if usage == 253 {
            guard let m = reader.byte() else { throw .malformed("secret key packet cut short") }
            guard let known = OpenPGPAEADMode(rawValue: m) else { throw .unsupported("a secret key sealed with AEAD algorithm \(m): not supported") }
            mode = known
        }
        if version == 6 {
            guard reader.byte() != nil else { throw .malformed("secret key packet cut short") }  // the S2K's length
        }
        let rest = body[reader.offset...]
        if rest.first == 101 {
            return nil  // gnu-dummy or a smartcard stub: no secret here
        }
        let s2k: OpenPGPS2K
        let s2kLength: Int
        do {
            (s2k, s2kLength) = try OpenPGPS2K.parse(rest)
            try s2k.validate()
        } catch {
            throw .unsupported("a secret key protected by an S2K rwsecret cannot read (\(error))")
        }
        reader.skip(s2kLength)
        if case .unsupported = cipher { throw .unsupported("a secret key protected with the \(cipher.name) cipher: not in OpenSSL (change its passphrase with gpg --edit-key passwd)") }
        let ivSize = mode?.nonceSize ?? cipher.blockSize
        guard let iv = reader.bytes(ivSize) else { throw .malformed("secret key packet cut short") }
        let sealed = Array(body[reader.offset...])
        reader.skip(sealed.count)
        let password = try passphrase()
        let key: SecretBytes
        do { key = try s2k.derive(password: password, length: cipher.keySize) } catch { throw .unsupported("the S2K of the secret key failed: \(error)") }
        var plain: SecretBytes
        if let mode {
            // RFC 9580 5.5.3: the key is HKDF-SHA256 of the S2K key; the associated data the
            // packet type octet then the public key packet's body.
            let typeOctet = 0xC0 | tag
            let info: [UInt8] = [typeOctet, version, cipherID, mode.rawValue]
            let kek = KindPrimitives.hkdfSHA256(key: key, salt: [], info: info, length: cipher.keySize)
            guard sealed.count >= OpenPGPAEADMode.tagSize, let opener = OpenPGPAEADOpener(mode: mode, cipher: cipher, key: kek) else {
                throw .unsupported("a secret key sealed with \(mode.name) and \(cipher.name): not supported")
            }
            let n = sealed.count - OpenPGPAEADMode.tagSize
            var ok = false
            let ad = [typeOctet] + publicBody
            plain = SecretBytes(count: n) { out in
                sealed.withUnsafeBytes { raw in
                    ok = opener.open(UnsafeRawBufferPointer(rebasing: raw[0..<n]), tag: UnsafeRawBufferPointer(rebasing: raw[n...]), nonce: iv, ad: ad, into: out)
                }
                if !ok { Crypto.cleanse(out) }
            }
            guard ok else { throw .wrongPassphrase }
        } else {
            guard let cfb = OpenPGPCFBDecryptor(cipher: cipher.openSSLCFB!, key: key, iv: iv) else {
                throw .unsupported("the \(cipher.name) cipher: this OpenSSL has none")
            }
            let decrypted = cfb.decrypt(sealed)
            let checkSize = usage == 254 ? 20 : 2
            guard decrypted.count >= checkSize else { throw .wrongPassphrase }
            let fields = decrypted.slice(0..<(decrypted.count - checkSize))
            let check = decrypted.withUnsafeBytes { Array($0[(decrypted.count - checkSize)...]) }
            if usage == 254 {
                let sha1 = OpenPGPDigest("SHA1")!
                sha1.update(fields)
                guard Crypto.constantTimeEqual(sha1.finish(), check) else { throw .wrongPassphrase }
            } else {
                guard OpenPGPKeyFile.checksum(fields) == UInt16(check[0]) << 8 | UInt16(check[1]) else { throw .wrongPassphrase }
            }
            plain = fields
        }
        // The fields must be what the algorithm has, and nothing more.
        var check = OpenPGPFieldReader(plain.withUnsafeBytes { Array($0) })
        defer { check.wipe() }
        do { try secretFields(&check, algorithm: algorithm) } catch { throw .wrongPassphrase }
        guard check.atEnd else { throw .malformed("data after the secret key fields") }
        _ = plain
        return plain
    }

    /// Reads the public fields of `algorithm`.
    static func publicFields(_ reader: inout OpenPGPFieldReader, algorithm: UInt8) throws(OpenPGPKeyError) -> OpenPGPPublicFields {
        let cut = OpenPGPKeyError.malformed("key material cut short")
        switch algorithm {
        case 1, 2, 3:
            guard let n = reader.mpi(), let e = reader.mpi() else { throw cut }
            return .rsa(n: n, e: e)
        case 16:
            guard reader.mpi() != nil, reader.mpi() != nil, reader.mpi() != nil else { throw cut }
            return .other
        case 17:
            for _ in 0..<4 { guard reader.mpi() != nil else { throw cut } }
            return .other
        case 18:
            guard let oid = reader.oid(), let point = reader.mpi(), let kdfLength = reader.byte(), let kdf = reader.bytes(Int(kdfLength)) else { throw cut }
            guard kdf.count == 3, kdf[0] == 1 else { throw .unsupported("ECDH key with KDF parameters rwsecret does not know") }
            return .ecdh(curve: OpenPGPCurve(oid: oid), point: point, hash: kdf[1], cipher: kdf[2])
        case 19, 22:
            guard reader.oid() != nil, reader.mpi() != nil else { throw cut }
            return .other
        case 25:
            guard let key = reader.bytes(32) else { throw cut }
            return .x25519(key)
        case 26:
            guard let key = reader.bytes(56) else { throw cut }
            return .x448(key)
        case 27:
            guard reader.bytes(32) != nil else { throw cut }
            return .other
        case 28:
            guard reader.bytes(57) != nil else { throw cut }
            return .other
        default:
            throw .unsupported("a key of \(OpenPGPKeyAlgorithm.name(algorithm)): not supported")
        }
    }

    /// Steps over the secret fields of `algorithm`.
    static func secretFields(_ reader: inout OpenPGPFieldReader, algorithm: UInt8) throws(OpenPGPKeyError) {
        let cut = OpenPGPKeyError.malformed("secret key material cut short")
        switch algorithm {
        case 1, 2, 3:
            for _ in 0..<4 { guard reader.mpi() != nil else { throw cut } }
        case 16, 17, 18, 19, 22:
            guard reader.mpi() != nil else { throw cut }
        case 25, 27: guard reader.bytes(32) != nil else { throw cut }
        case 26: guard reader.bytes(56) != nil else { throw cut }
        case 28: guard reader.bytes(57) != nil else { throw cut }
        default: throw .unsupported("a key of \(OpenPGPKeyAlgorithm.name(algorithm)): not supported")
        }
    }
}

/// A cursor over a packet's fields: bytes, big-endian integers, MPIs, OIDs.
struct OpenPGPFieldReader {
    private(set) var bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    mutating func wipe() { Crypto.cleanse(&bytes) }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func bytes(_ n: Int) -> [UInt8]? {
        guard n >= 0, bytes.count - offset >= n else { return nil }
        defer { offset += n }
        return Array(bytes[offset..<(offset + n)])
    }

    mutating func skip(_ n: Int) { offset = min(bytes.count, offset + n) }

    mutating func uint16() -> UInt16? {
        guard let b = bytes(2) else { return nil }
        return UInt16(b[0]) << 8 | UInt16(b[1])
    }

    mutating func uint32() -> UInt32? {
        guard let b = bytes(4) else { return nil }
        return b.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// An MPI's value bytes (its bit count read and stepped over).
    mutating func mpi() -> [UInt8]? {
        guard let bits = uint16() else { return nil }
        return bytes((Int(bits) + 7) / 8)
    }

    /// A curve OID: a length octet (not 0 or 0xFF) and the OID.
    mutating func oid() -> [UInt8]? {
        guard let length = byte(), length != 0, length != 0xff else { return nil }
        return bytes(Int(length))
    }
}

/// Key files: armor, packets, checksums.
enum OpenPGPKeyFile {
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// The sum of the bytes mod 65536 (v4's secret key checksum).
    static func checksum(_ bytes: some ContiguousByteStorage) -> UInt16 {
        bytes.withUnsafeBytes { raw in raw.reduce(UInt16(0)) { $0 &+ UInt16($1) } }
    }

    /// The binary form of a key file: itself, or what its armor holds (CRC-24 checked when present).
    static func dearmor(_ bytes: [UInt8]) throws(OpenPGPKeyError) -> [UInt8] {
        let text = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
        // A copy of its own, which the caller wipes (the caller's array stays the caller's to wipe).
        guard text.first == UInt8(ascii: "-") else { return bytes.withUnsafeBytes { Array($0) } }
        let lines = text.split(separator: 0x0a, omittingEmptySubsequences: false).map { line -> ArraySlice<UInt8> in
            var l = line
            while let last = l.last, last == 0x0d || last == 0x20 || last == 0x09 { l.removeLast() }
            return l
        }
        guard let begin = lines.first, begin.starts(with: "-----BEGIN PGP ".utf8), begin.last == UInt8(ascii: "-") else {
            throw .malformed("no BEGIN PGP line")
        }
        let label = begin.dropFirst(15).prefix { $0 != UInt8(ascii: "-") }
        var i = 1
        // Armor headers up to the blank line.
        while i < lines.count, !lines[i].isEmpty, lines[i].contains(UInt8(ascii: ":")) { i += 1 }
        if i < lines.count, lines[i].isEmpty { i += 1 }
        var digits: [UInt8] = []
        defer { Crypto.cleanse(&digits) }
        var crc: [UInt8]?
        var ended = false
        while i < lines.count {
            let line = lines[i]
            i += 1
            if line.starts(with: "-----END PGP ".utf8) {
                guard line.dropFirst(13).prefix(while: { $0 != UInt8(ascii: "-") }).elementsEqual(label) else { throw .malformed("its END line does not match its BEGIN line") }
                ended = true
                break
            }
            if line.first == UInt8(ascii: "="), line.count == 5 {
                crc = Base64.decodeLenient(line.dropFirst())
                continue
            }
            digits += line
        }
        guard ended else { throw .malformed("no END PGP line") }
        guard let decoded = Base64.decodeLenient(digits), !decoded.isEmpty else { throw .malformed("invalid base64 in the armor") }
        if let crc {
            let sum = crc24(decoded)
            guard crc.count == 3, crc == [UInt8(sum >> 16), UInt8(sum >> 8 & 0xff), UInt8(sum & 0xff)] else {
                throw .malformed("armor checksum mismatch")
            }
        }
        return decoded
    }

    static func crc24(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xB7_04CE
        for byte in bytes {
            crc ^= UInt32(byte) << 16
            for _ in 0..<8 {
                crc <<= 1
                if crc & 0x100_0000 != 0 { crc ^= 0x186_4CFB }
            }
        }
        return crc & 0xFF_FFFF
    }

    /// The packets of a binary key: (tag, body). Partial lengths are refused (key packets never use them).
    static func packets(_ bytes: [UInt8]) throws(OpenPGPKeyError) -> [(tag: UInt8, body: [UInt8])] {
        var result: [(tag: UInt8, body: [UInt8])] = []
        var i = 0
        while i < bytes.count {
            let first = bytes[i]
            guard first & 0x80 != 0 else { throw .malformed("not an OpenPGP packet (byte 0x\(String(first, radix: 16)))") }
            i += 1
            let tag: UInt8
            var length: Int
            if first & 0x40 != 0 {
                tag = first & 0x3f
                guard i < bytes.count else { throw .malformed("packet header cut short") }
                let b0 = Int(bytes[i])
                if b0 < 192 {
                    length = b0
                    i += 1
                } else if b0 < 224 {
                    guard i + 1 < bytes.count else { throw .malformed("packet header cut short") }
                    length = (b0 - 192) << 8 + Int(bytes[i + 1]) + 192
                    i += 2
                } else if b0 == 255 {
                    guard i + 4 < bytes.count else { throw .malformed("packet header cut short") }
                    length = bytes[(i + 1)...(i + 4)].reduce(0) { $0 << 8 | Int($1) }
                    i += 5
                } else {
                    throw .malformed("a partial length in a key")
                }
            } else {
                tag = (first >> 2) & 0x0f
                let size = [1, 2, 4, 0][Int(first & 3)]
                if size == 0 {
                    length = bytes.count - i
                } else {
                    guard i + size <= bytes.count else { throw .malformed("packet header cut short") }
                    length = bytes[i..<(i + size)].reduce(0) { $0 << 8 | Int($1) }
                    i += size
                }
            }
            guard length <= bytes.count - i else { throw .malformed("a packet cut short") }
            result.append((tag, Array(bytes[i..<(i + length)])))
            i += length
        }
        return result
    }

    /// Appends a packet in the new format.
    static func appendPacket(tag: UInt8, body: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(0xC0 | tag)
        let n = body.count
        if n < 192 {
            out.append(UInt8(n))
        } else if n < 8384 {
            out.append(UInt8((n - 192) >> 8 + 192))
            out.append(UInt8((n - 192) & 0xff))
        } else {
            out += [255, UInt8(n >> 24 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)]
        }
        out.append(contentsOf: body)
    }
}

extension OpenPGPTransferableKey {
    /// The unprotected secret key, ASCII-armored (`-----BEGIN PGP PRIVATE KEY BLOCK-----`, with
    /// its CRC-24), as `identity export` writes it for gpg --import.
    package func armoredSecret() -> SecretBytes? {
        guard let unprotected else { return nil }
        var binary = unprotected.withUnsafeBytes { Array($0) }
        defer { Crypto.cleanse(&binary) }
        var encoded: [UInt8] = []
        Base64.encode(binary, padded: true, into: &encoded)
        defer { Crypto.cleanse(&encoded) }
        var out = Array("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n".utf8)
        var start = 0
        while start < encoded.count {
            out += encoded[start..<min(start + 64, encoded.count)]
            out.append(0x0a)
            start += 64
        }
        let crc = OpenPGPKeyFile.crc24(binary)
        out += Array(("=" + Base64.encode([UInt8(crc >> 16), UInt8(crc >> 8 & 0xff), UInt8(crc & 0xff)]) + "\n-----END PGP PRIVATE KEY BLOCK-----\n").utf8)
        defer { Crypto.cleanse(&out) }
        return SecretBytes(out)
    }

    /// The keys this can decrypt with in this build (ElGamal is not in OpenSSL).
    package var usableDecryptionKeys: [OpenPGPKey] { decryptionKeys.filter { $0.algorithm != 16 } }

    /// What `identity list` and import say of it: the fingerprint, then the user ID.
    package var words: String { fingerprintHex + (userID.map { " " + $0 } ?? "") }
}
