/// Writing OpenPGP messages to public keys (`encrypt --to-key`, RFC 9580): a PKESK for each
/// recipient's encryption key, then the encrypted data of one literal data packet (binary,
/// uncompressed). v4 keys get PKESK v3 and SEIPD v1 (AES-256 CFB with the MDC), as gpg 2.2
/// reads; v6 keys get PKESK v6 and SEIPD v2 (AES-256 OCB), as RFC 9580 requires of them. The
/// two are not mixed in one message: a v6 PKESK goes only with SEIPD v2, which v4-only peers
/// (gpg 2.2) cannot read. Every primitive and every random byte is OpenSSL's.

/// Why a key cannot be encrypted to. Facts only.
package enum OpenPGPRecipientError: Error, Sendable, Equatable, CustomStringConvertible {
    case expired(String)
    case revoked(String)
    case noEncryptionKey(String)
    case unsupported(String)
    case mixedVersions

    package var description: String {
        switch self {
        case .expired(let fp): "the OpenPGP key \(fp) has expired (renew it: gpg --quick-set-expire)"
        case .revoked(let fp): "the OpenPGP key \(fp) is revoked"
        case .noEncryptionKey(let fp): "the OpenPGP key \(fp) has no valid encryption subkey (a signing-only key; add one: gpg --quick-add-key FINGERPRINT cv25519 encr)"
        case .unsupported(let why): why
        case .mixedVersions: "v4 and v6 OpenPGP keys in one message: a v6 key needs SEIPD v2, which v4-only readers (gpg 2.2) cannot open; encrypt to each kind separately"
        }
    }
}

/// One recipient: the encryption key of a transferable public key that a message is made for.
package struct OpenPGPRecipient: Sendable {
    package let key: OpenPGPKey
    /// The primary key's fingerprint (hex), for messages.
    package let owner: String

    /// The fingerprint of the key used (hex).
    package var keyHex: String { OpenPGPKeyFile.hex(key.fingerprint) }

    /// The encryption key of `transferable` to use at `now` (seconds since 1970): its newest
    /// valid encryption subkey (or the primary key when that is for encryption and no subkey
    /// is). Refused when the key is expired or revoked, has no such key, or its algorithm is
    /// one rwsecret cannot encrypt to.
    package init(_ transferable: OpenPGPTransferableKey, now: UInt64) throws(OpenPGPRecipientError) {
        let fp = transferable.fingerprintHex
        let primary = transferable.primary
        if primary.revoked { throw .revoked(fp) }
        if Self.isExpired(primary, now: now) { throw .expired(fp) }
        let candidates = transferable.keys.filter { $0.isForEncryption }
        let live = candidates.filter { !$0.revoked && !Self.isExpired($0, now: now) }
        guard !live.isEmpty else {
            if candidates.contains(where: { Self.isExpired($0, now: now) }) { throw .expired(fp + "'s encryption subkey") }
            if candidates.contains(where: { $0.revoked }) { throw .revoked(fp + "'s encryption subkey") }
            throw .noEncryptionKey(fp)
        }
        let usable = live.filter { Self.unusableReason($0) == nil }
        guard let chosen = usable.max(by: { $0.created < $1.created }) else {
            throw .unsupported("the OpenPGP key \(fp): " + Self.unusableReason(live[0])!)
        }
        key = chosen
        owner = fp
    }

    static func isExpired(_ key: OpenPGPKey, now: UInt64) -> Bool {
        key.expiry != 0 && UInt64(key.created) + UInt64(key.expiry) <= now
    }

    /// Why rwsecret cannot encrypt to `key` (nil: it can).
    static func unusableReason(_ key: OpenPGPKey) -> String? {
        switch key.fields {
        case .rsa: return nil
        case .x25519, .x448: return nil
        case .ecdh(let curve, _, let hash, let cipher):
            if case .other = curve { return "its encryption subkey is ECDH over \(curve.name), which rwsecret does not have" }
            guard let name = OpenPGPHash.openSSLName(hash), ["SHA256", "SHA384", "SHA512"].contains(name), [7, 8, 9].contains(cipher) else {
                return "its ECDH subkey has KDF parameters rwsecret does not use"
            }
            return nil
        case .other:
            if key.algorithm == 16 { return "its encryption subkey is ElGamal, which OpenSSL does not have (add a cv25519 or RSA subkey: gpg --quick-add-key)" }
            return "its encryption subkey is \(OpenPGPKeyAlgorithm.name(key.algorithm)), which rwsecret cannot encrypt to"
        }
    }
}

/// Writes one OpenPGP message, streamed: `update` with the plaintext, then `finalize`.
package final class OpenPGPMessageWriter {
    private static let cipher = OpenPGPCipher.aes256
    /// SEIPD v2 chunks of 2^(6+c) bytes: c = 10 makes 64 KiB chunks.
    private static let chunkOctet: UInt8 = 10
    private static var chunkSize: Int { 1 << (6 + Int(chunkOctet)) }

    private let armor: OpenPGPArmorWriter?
    private var seipd = OpenPGPPartialBody(tag: 18)
    private var literal = OpenPGPPartialBody(tag: 11)
    private let v2: Bool
    // SEIPD v1
    private var cfb: OpenPGPCFBEncryptor?
    private var mdc: OpenPGPDigest?
    // SEIPD v2
    private var sealer: OpenPGPAEADSealer?
    private var noncePrefix: [UInt8] = []
    private var ad: [UInt8] = []
    private var pending: [UInt8] = []
    private var chunkIndex: UInt64 = 0
    private var total: UInt64 = 0
    private var head: [UInt8] = []

    /// A message to `recipients` (all v4 keys or all v6 keys), its literal packet named
    /// `fileName` (UTF-8, at most 255 bytes; may be empty) and dated `date`.
    package init(recipients: [OpenPGPRecipient], armor: Bool, fileName: [UInt8] = [], date: UInt32) throws(OpenPGPRecipientError) {
        precondition(!recipients.isEmpty)
        let versions = Set(recipients.map { $0.key.version == 6 })
        guard versions.count == 1 else { throw .mixedVersions }
        v2 = versions.first!
        self.armor = armor ? OpenPGPArmorWriter() : nil
        var random = Crypto.randomBytes(count: Self.cipher.keySize)
        let session = SecretBytes(random)
        Crypto.cleanse(&random)
        defer { session.cleanseNow() }
        var out: [UInt8] = []
        for recipient in recipients {
            guard let body = OpenPGPPKESKWriter.make(for: recipient.key, session: session, cipher: Self.cipher, v6: v2) else {
                throw .unsupported("the OpenPGP key \(recipient.owner): its encryption key was refused by OpenSSL (a damaged key?)")
            }
            out += OpenPGPPartialBody.packet(tag: 1, body: body)
        }
        if v2 {
            let salt = Crypto.randomBytes(count: 32)
            ad = [0xC0 | 18, 2, Self.cipher.id, OpenPGPAEADMode.ocb.rawValue, Self.chunkOctet]
            let prefixSize = OpenPGPAEADMode.ocb.nonceSize - 8
            let derived = KindPrimitives.hkdfSHA256(key: session, salt: salt, info: ad, length: Self.cipher.keySize + prefixSize)
            sealer = OpenPGPAEADSealer(mode: .ocb, cipher: Self.cipher, key: derived.slice(0..<Self.cipher.keySize))
            noncePrefix = derived.withUnsafeBytes { Array($0[Self.cipher.keySize...]) }
            precondition(sealer != nil, "OpenSSL has no AES-256-OCB")
            out += seipd.append([2, Self.cipher.id, OpenPGPAEADMode.ocb.rawValue, Self.chunkOctet] + salt)
        } else {
            cfb = OpenPGPCFBEncryptor(cipher: Self.cipher.openSSLCFB!, key: session)
            mdc = OpenPGPDigest("SHA1")
            precondition(cfb != nil && mdc != nil, "OpenSSL has no AES-256-CFB or SHA-1")
            var prefix = Crypto.randomBytes(count: 16)
            prefix += prefix.suffix(2)
            out += seipd.append([1])
            out += protect(prefix)
            Crypto.cleanse(&prefix)
        }
        let name = Array(fileName.prefix(255))
        let literalHead = [UInt8(ascii: "b"), UInt8(name.count)] + name + [UInt8(date >> 24), UInt8(date >> 16 & 0xff), UInt8(date >> 8 & 0xff), UInt8(date & 0xff)]
        out += protect(literal.append(literalHead))
        head = out
    }

    /// The message bytes for the next plaintext bytes.
    package func update(_ plaintext: some Collection<UInt8>) -> [UInt8] {
        var out = head
        head = []
        var bytes = Array(plaintext)
        defer { Crypto.cleanse(&bytes) }
        var packet = literal.append(bytes)
        defer { Crypto.cleanse(&packet) }
        out += protect(packet)
        return armor.map { $0.update(out) } ?? out
    }

    /// The rest of the message.
    package func finalize() -> [UInt8] {
        var out = head
        head = []
        var packet = literal.finish()
        defer { Crypto.cleanse(&packet) }
        out += protect(packet)
        if v2 {
            out += sealChunks(final: true)
            var finalAD = ad
            finalAD += (0..<8).reversed().map { UInt8(total >> (8 * UInt64($0)) & 0xff) }
            let tag = [UInt8]().withUnsafeBytes { sealer!.seal($0, nonce: nonce(chunkIndex), ad: finalAD) }
            out += seipd.append(tag)
        } else {
            out += protect([0xD3, 0x14])
            out += seipd.append(mdc!.finish().withUnsafeBytes { cfb!.encrypt($0) })
        }
        out += seipd.finish()
        Crypto.cleanse(&pending)
        guard let armor else { return out }
        return armor.update(out) + armor.finish()
    }

    /// Inner packet bytes into the encrypted packet: v1, hashed for the MDC and CFB-encrypted;
    /// v2, gathered into chunks and sealed.
    private func protect(_ inner: [UInt8]) -> [UInt8] {
        guard !inner.isEmpty else { return [] }
        if v2 {
            pending += inner
            total += UInt64(inner.count)
            return sealChunks(final: false)
        }
        mdc!.update(inner)
        return seipd.append(inner.withUnsafeBytes { cfb!.encrypt($0) })
    }

    private func nonce(_ index: UInt64) -> [UInt8] {
        noncePrefix + (0..<8).reversed().map { UInt8(index >> (8 * UInt64($0)) & 0xff) }
    }

    /// Seals the whole chunks pending (and at the end the last, shorter one, if any).
    private func sealChunks(final: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        while pending.count - start > Self.chunkSize || (final && pending.count > start) {
            let end = min(start + Self.chunkSize, pending.count)
            let sealed = pending.withUnsafeBytes { sealer!.seal(UnsafeRawBufferPointer(rebasing: $0[start..<end]), nonce: nonce(chunkIndex), ad: ad) }
            chunkIndex += 1
            out += seipd.append(sealed)
            start = end
        }
        if start > 0 {
            let rest = Array(pending[start...])
            Crypto.cleanse(&pending)
            pending = rest
        }
        return out
    }
}

/// A packet body of unknown length written in partial body lengths (RFC 9580 4.2.1.4): parts
/// of 2^13 bytes, then the rest with a definite length.
struct OpenPGPPartialBody {
    let tag: UInt8
    private var buffer: [UInt8] = []
    private var started = false
    private static let part = 1 << 13

    init(tag: UInt8) { self.tag = tag }

    /// The whole parts that `bytes` complete (the buffer, which may hold plaintext, is wiped
    /// as it is emptied).
    mutating func append(_ bytes: [UInt8]) -> [UInt8] {
        buffer += bytes
        guard buffer.count > Self.part else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(buffer.count + buffer.count / Self.part + 1)
        var start = 0
        while buffer.count - start > Self.part {
            if !started { out.append(0xC0 | tag); started = true }
            out.append(0xE0 | 13)
            out += buffer[start..<(start + Self.part)]
            start += Self.part
        }
        let rest = Array(buffer[start...])
        Crypto.cleanse(&buffer)
        buffer = rest
        return out
    }

    mutating func finish() -> [UInt8] {
        var out: [UInt8] = started ? [] : [0xC0 | tag]
        out += Self.length(buffer.count) + buffer
        Crypto.cleanse(&buffer)
        return out
    }

    static func length(_ n: Int) -> [UInt8] {
        if n < 192 { return [UInt8(n)] }
        if n < 8384 { return [UInt8((n - 192) >> 8 + 192), UInt8((n - 192) & 0xff)] }
        return [255, UInt8(n >> 24 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)]
    }

    static func packet(tag: UInt8, body: [UInt8]) -> [UInt8] {
        [0xC0 | tag] + length(body.count) + body
    }
}

/// PKESK v3 and v6 bodies (RFC 9580 5.1) for one key: the session key encrypted with RSA
/// PKCS#1 v1.5, ECDH (RFC 6637 KDF, AES key wrap) or X25519/X448 (HKDF, AES key wrap).
enum OpenPGPPKESKWriter {
    static func make(for key: OpenPGPKey, session: SecretBytes, cipher: OpenPGPCipher, v6: Bool) -> [UInt8]? {
        let head: [UInt8] = v6 ? [6, UInt8(1 + key.fingerprint.count), key.version] + key.fingerprint + [key.algorithm]
                               : [3] + key.keyID + [key.algorithm]
        // The session key with (v3) its cipher octet first and (not X25519/X448) its checksum.
        let sum = session.withUnsafeBytes { $0.reduce(UInt16(0)) { $0 &+ UInt16($1) } }
        func message(cipherOctet: Bool, checksum: Bool) -> SecretBytes {
            let extra = (cipherOctet ? 1 : 0) + (checksum ? 2 : 0)
            return SecretBytes(count: session.count + extra) { out in
                var i = 0
                if cipherOctet { out[0] = cipher.id; i = 1 }
                session.withUnsafeBytes { (out.baseAddress! + i).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                if checksum {
                    out[out.count - 2] = UInt8(sum >> 8)
                    out[out.count - 1] = UInt8(sum & 0xff)
                }
            }
        }
        switch key.fields {
        case .rsa(let n, let e):
            guard let c = OpenPGPKeyPrimitives.rsaEncryptPKCS1(n: n, e: e, message: message(cipherOctet: !v6, checksum: true)) else { return nil }
            return head + mpi(c)
        case .ecdh(let curve, let point, let hash, let cipherID):
            let shared: SecretBytes?
            let ephemeral: [UInt8]
            switch curve {
            case .curve25519:
                guard point.count == 33, point[0] == 0x40, let (secret, pub) = OpenPGPKeyPrimitives.montgomeryKeyPair(x448: false) else { return nil }
                shared = OpenPGPKeyPrimitives.montgomery(privateKey: secret, peer: Array(point[1...]), x448: false)
                ephemeral = [0x40] + pub
            default:
                guard let nist = curve.nist, let (secret, pub) = OpenPGPKeyPrimitives.ecKeyPair(nist) else { return nil }
                shared = OpenPGPKeyPrimitives.ecdh(nist, privateScalar: secret, ownPublic: pub, peer: point)
                ephemeral = pub
            }
            guard let shared, let kek = OpenPGPPKESK.ecdhKEK(shared: shared, curve: curve, hash: hash, cipher: cipherID, fingerprint: key.fingerprint) else { return nil }
            // PKCS#5 padding to a multiple of 8 bytes (RFC 9580 11.5).
            let m = message(cipherOctet: !v6, checksum: true)
            let pad = 8 - m.count % 8
            let padded = SecretBytes(count: m.count + pad) { out in
                m.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                for i in m.count..<(m.count + pad) { out[i] = UInt8(pad) }
            }
            guard let wrapped = OpenPGPKeyPrimitives.aesWrap(kek: kek, key: padded) else { return nil }
            return head + mpi(ephemeral) + [UInt8(wrapped.count)] + wrapped
        case .x25519(let own), .x448(let own):
            let x448 = key.algorithm == 26
            guard let (secret, pub) = OpenPGPKeyPrimitives.montgomeryKeyPair(x448: x448),
                  let shared = OpenPGPKeyPrimitives.montgomery(privateKey: secret, peer: own, x448: x448) else { return nil }
            let size = x448 ? 56 : 32
            let ikm = SecretBytes(count: 3 * size) { out in
                pub.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: size) }
                own.withUnsafeBytes { (out.baseAddress! + size).copyMemory(from: $0.baseAddress!, byteCount: size) }
                shared.withUnsafeBytes { (out.baseAddress! + 2 * size).copyMemory(from: $0.baseAddress!, byteCount: size) }
            }
            let kek = OpenPGPKeyPrimitives.hkdf(sha512: x448, key: ikm, info: Array((x448 ? "OpenPGP X448" : "OpenPGP X25519").utf8), length: x448 ? 32 : 16)
            guard let wrapped = OpenPGPKeyPrimitives.aesWrap(kek: kek, key: session) else { return nil }
            // v3: the cipher octet in the clear, counted in the length octet.
            let rest = v6 ? wrapped : [cipher.id] + wrapped
            return head + pub + [UInt8(rest.count)] + rest
        case .other:
            return nil
        }
    }

    /// An MPI: the bit count, then the value without leading zero bytes.
    static func mpi(_ value: [UInt8]) -> [UInt8] {
        let trimmed = Array(value.drop { $0 == 0 })
        guard let top = trimmed.first else { return [0, 0] }
        let bits = (trimmed.count - 1) * 8 + (8 - top.leadingZeroBitCount)
        return [UInt8(bits >> 8), UInt8(bits & 0xff)] + trimmed
    }
}

/// ASCII armor of a message (RFC 9580 6.2), streamed: lines of 64 base64 characters, the
/// CRC-24 line (older readers want it), the END line.
final class OpenPGPArmorWriter {
    private var carry: [UInt8] = []
    private var crc: UInt32 = 0xB7_04CE
    private var started = false

    func update(_ bytes: [UInt8]) -> [UInt8] {
        for byte in bytes {
            crc ^= UInt32(byte) << 16
            for _ in 0..<8 {
                crc <<= 1
                if crc & 0x100_0000 != 0 { crc ^= 0x186_4CFB }
            }
        }
        var out: [UInt8] = started ? [] : Array("-----BEGIN PGP MESSAGE-----\n\n".utf8)
        started = true
        carry += bytes
        let whole = carry.count / 48 * 48
        var start = 0
        while start < whole {
            out += Array(Base64.encode(Array(carry[start..<(start + 48)])).utf8) + [0x0a]
            start += 48
        }
        carry.removeFirst(whole)
        return out
    }

    func finish() -> [UInt8] {
        var out: [UInt8] = started ? [] : Array("-----BEGIN PGP MESSAGE-----\n\n".utf8)
        if !carry.isEmpty { out += Array(Base64.encode(carry).utf8) + [0x0a] }
        let sum = crc & 0xFF_FFFF
        out += Array(("=" + Base64.encode([UInt8(sum >> 16), UInt8(sum >> 8 & 0xff), UInt8(sum & 0xff)]) + "\n-----END PGP MESSAGE-----\n").utf8)
        return out
    }
}
