/// SSH keys as age uses them: public keys in wire form (`string type, …`), their 4-byte tag,
/// and unencrypted OpenSSH private keys (`-----BEGIN OPENSSH PRIVATE KEY-----`).
enum SSHKeys {
    /// The stanza tag of a key: the first 4 bytes of SHA-256 of its wire form, unpadded base64.
    static func tag(_ wire: [UInt8]) -> String {
        String(decoding: AgeEncoding.encodeRaw(Array(KindPrimitives.sha256(wire).prefix(4))), as: UTF8.self)
    }

    /// The recipient of a public key in wire form, whose text names `type`.
    static func recipient(wire: [UInt8], type: String) throws(AgeRecipientError) -> any AgeRecipient {
        var reader = SSHWireReader(wire)
        guard let keyType = reader.string(), String(decoding: keyType, as: UTF8.self) == type else {
            throw .malformed("the SSH key's type does not match its data")
        }
        switch type {
        case "ssh-ed25519":
            guard let key = reader.string(), key.count == 32, reader.atEnd else { throw .malformed("not an ssh-ed25519 public key") }
            return try AgeSSHEd25519Recipient(wire: wire, publicKey: key)
        default:
            guard let exponent = reader.string(), let modulus = reader.string(), reader.atEnd else { throw .malformed("not an ssh-rsa public key") }
            return try AgeSSHRSARecipient(wire: wire, modulus: modulus, exponent: exponent)
        }
    }
}

/// A reader of SSH wire data: big-endian `uint32`s and length-prefixed strings.
struct SSHWireReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    mutating func uint32() -> UInt32? {
        guard bytes.count - offset >= 4 else { return nil }
        defer { offset += 4 }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func string() -> [UInt8]? {
        guard let length = uint32(), bytes.count - offset >= Int(length) else { return nil }
        defer { offset += Int(length) }
        return Array(bytes[offset..<offset + Int(length)])
    }

    /// The bytes left.
    var rest: ArraySlice<UInt8> { bytes[offset...] }
}

/// An unencrypted OpenSSH private key used as an age identity: `ssh-ed25519` (its X25519 form,
/// tweaked as age does) or `ssh-rsa` (RSA-OAEP-SHA256).
package final class AgeSSHIdentity: Sendable {
    enum Key: Sendable {
        case ed25519(secret: SecretBytes, montgomery: [UInt8])
        case rsa(RSAKey)
    }

    private let key: Key

    /// A key read another way (a PEM RSA key, a passphrase-protected key through libssh).
    init(key: Key, wire: [UInt8], stanzaType: String) {
        self.key = key
        self.wire = wire
        self.stanzaType = stanzaType
    }
    /// The public key in wire form.
    let wire: [UInt8]
    /// The stanza type it opens (`ssh-ed25519` or `ssh-rsa`).
    package let stanzaType: String

    /// Why a private key file was refused.
    package enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case malformed(String)
        case encrypted
        case unsupported(String)
        /// The passphrase given does not open the key.
        case wrongPassphrase
        /// libssh, which reads passphrase-protected keys, is not there.
        case noLibSSH(String)
        /// A passphrase-protected OpenSSH-format RSA key (read through Botan's bcrypt-pbkdf:
        /// libssh 0.10 with OpenSSL 3 decrypts it but keeps only n, e and d, so it cannot hand
        /// the key over). Internal to the readers: outside, it is `.encrypted` or `.noBotan`.
        case encryptedRSA
        /// Botan, whose bcrypt-pbkdf opens a passphrase-protected OpenSSH RSA key, is not there.
        case noBotan(String)

        package var description: String {
            switch self {
            case .malformed(let why): "not an OpenSSH private key: \(why)"
            case .encrypted: "a private key protected by a passphrase: run rwsecret on a terminal to be asked for it"
            case .unsupported(let type): "\(type) keys are not age identities (age takes ssh-ed25519 and ssh-rsa)"
            case .wrongPassphrase: "the passphrase does not open this key"
            case .noLibSSH(let missing): "a passphrase-protected key needs libssh, which is missing (\(missing))"
            case .encryptedRSA: "a private key protected by a passphrase: run rwsecret on a terminal to be asked for it"
            case .noBotan(let missing):
                "a passphrase-protected RSA key in OpenSSH format needs Botan, which is missing (\(missing)): "
                    + "ssh-keygen -p -m PKCS8 -f KEY rewrites it as a PKCS#8 key with a passphrase, which rwsecret and ssh read"
            }
        }
    }

    static let begin = "-----BEGIN OPENSSH PRIVATE KEY-----"
    static let end = "-----END OPENSSH PRIVATE KEY-----"

    /// Whether `text` holds an OpenSSH private key.
    package static func looksLikeKey(_ text: String) -> Bool {
        let trimmed = text.trimmingASCIIWhitespace()
        return trimmed.hasPrefix(begin) || pemBegins.contains { trimmed.hasPrefix($0) }
    }

    /// The PEM private keys read (`ssh-keygen -m PEM`, PKCS#8, encrypted or not).
    static let pemBegins = ["-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----", "-----BEGIN ENCRYPTED PRIVATE KEY-----"]

    /// The fields of an OpenSSH private key file (`openssh-key-v1`) before its private section.
    struct Container {
        let cipher: [UInt8]
        let kdf: [UInt8]
        let kdfOptions: [UInt8]
        let count: UInt32
        /// What follows the key count: the public key, the private section (and, for an AEAD cipher, its tag).
        var reader: SSHWireReader
    }

    /// The container of an OpenSSH private key file; `data` receives its decoded bytes, which
    /// the caller wipes.
    static func container(_ text: String, data: inout [UInt8]) throws(ParseError) -> Container {
        let trimmed = text.trimmingASCIIWhitespace()
        guard trimmed.hasPrefix(Self.begin), trimmed.hasSuffix(Self.end) else { throw .malformed("no BEGIN/END OPENSSH PRIVATE KEY lines") }
        let body = trimmed.dropFirst(Self.begin.count).dropLast(Self.end.count).filter { !$0.isWhitespace }
        guard let decoded = AgeEncoding.decodePadded(ArraySlice(body.utf8)) ?? AgeEncoding.decodeRaw(body.utf8) else { throw .malformed("invalid base64") }
        data = decoded
        let magic = Array("openssh-key-v1\0".utf8)
        guard data.starts(with: magic) else { throw .malformed("not openssh-key-v1") }
        var reader = SSHWireReader(Array(data.dropFirst(magic.count)))
        guard let cipher = reader.string(), let kdf = reader.string(), let kdfOptions = reader.string(), let count = reader.uint32() else { throw .malformed("truncated") }
        return Container(cipher: cipher, kdf: kdf, kdfOptions: kdfOptions, count: count, reader: reader)
    }

    /// Parses an unencrypted OpenSSH private key file (`openssh-key-v1`, one key).
    package init(openSSH text: String) throws(ParseError) {
        var data: [UInt8] = []
        defer { Crypto.cleanse(&data) }
        var container = try Self.container(text, data: &data)
        guard container.cipher == Array("none".utf8), container.kdf == Array("none".utf8) else {
            // The public half is not encrypted: an RSA key is read through Botan (AgeSSHIdentity+Botan).
            if container.count == 1, let wire = container.reader.string() {
                var publicReader = SSHWireReader(wire)
                if publicReader.string() == Array("ssh-rsa".utf8) { throw .encryptedRSA }
            }
            throw .encrypted
        }
        guard container.count == 1 else { throw .malformed("holds \(container.count) keys (one expected)") }
        guard let wire = container.reader.string(), var secret = container.reader.string() else { throw .malformed("truncated") }
        defer { Crypto.cleanse(&secret) }
        (key, stanzaType) = try Self.privateKey(secret, wire: wire)
        self.wire = wire
    }

    /// The key in an OpenSSH private section (unencrypted, or decrypted) and its type, checked
    /// against the public key `wire`.
    static func privateKey(_ secret: [UInt8], wire: [UInt8]) throws(ParseError) -> (Key, String) {
        var inner = SSHWireReader(secret)
        guard let check1 = inner.uint32(), let check2 = inner.uint32(), check1 == check2 else { throw .malformed("its check numbers differ (an encrypted key?)") }
        guard let typeBytes = inner.string() else { throw .malformed("truncated") }
        let type = String(decoding: typeBytes, as: UTF8.self)
        var publicReader = SSHWireReader(wire)
        guard publicReader.string() == typeBytes else { throw .malformed("its public and private halves differ") }
        switch type {
        case "ssh-ed25519":
            guard let pub = inner.string(), pub.count == 32, var pair = inner.string(), pair.count == 64 else { throw .malformed("truncated ssh-ed25519 key") }
            defer { Crypto.cleanse(&pair) }
            guard Array(pair[32...]) == pub, publicReader.string() == pub else { throw .malformed("its public and private halves differ") }
            // age: the X25519 secret is the first half of SHA-512 of the Ed25519 seed.
            let hash = KindPrimitives.sha512(SecretBytes(pair[0..<32]))
            let scalar = hash.slice(0..<32)
            guard let montgomery = KindPrimitives.ed25519PublicToX25519(pub) else { throw .malformed("invalid ssh-ed25519 public key") }
            return (.ed25519(secret: scalar, montgomery: montgomery), type)
        case "ssh-rsa":
            guard let n = inner.string(), let e = inner.string(), var d = inner.string(), var iqmp = inner.string(), var p = inner.string(), var q = inner.string() else {
                throw .malformed("truncated ssh-rsa key")
            }
            defer {
                Crypto.cleanse(&d)
                Crypto.cleanse(&iqmp)
                Crypto.cleanse(&p)
                Crypto.cleanse(&q)
            }
            guard publicReader.string() == e, publicReader.string() == n else { throw .malformed("its public and private halves differ") }
            guard let rsa = KindPrimitives.rsaPrivateKey(modulus: n, exponent: e, privateExponent: SecretBytes(d)) else { throw .malformed("invalid ssh-rsa key") }
            return (.rsa(rsa), type)
        default:
            throw .unsupported(type)
        }
    }

    /// The file key of the first stanza of this key's type and tag that opens; nil when none does.
    /// Throws for a stanza that no key could open (malformed, a low-order share).
    func unwrap(_ stanzas: [AgeKind.Stanza]) throws(KindError) -> SecretBytes? {
        let tag = SSHKeys.tag(wire)
        for stanza in stanzas where stanza.type == stanzaType {
            switch key {
            case .ed25519(let secret, let montgomery):
                guard stanza.arguments.count == 2, let share = AgeEncoding.decodeRaw(stanza.arguments[1].utf8), share.count == 32,
                      stanza.body.count == 32 else { throw .header("malformed ssh-ed25519 stanza") }
                guard stanza.arguments[0] == tag else { continue }
                guard let shared = KindPrimitives.x25519(privateKey: secret, peer: share) else { throw .header("ssh-ed25519 stanza with a low-order share") }
                var sharedBytes = shared.withUnsafeBytes { Array($0) }
                defer { Crypto.cleanse(&sharedBytes) }
                guard let tweaked = KindPrimitives.x25519(privateKey: AgeSSHEd25519Recipient.tweak(wire: wire), peer: sharedBytes) else {
                    throw .header("ssh-ed25519 stanza with a low-order share")
                }
                let wrapKey = KindPrimitives.hkdfSHA256(key: tweaked, salt: share + montgomery, info: AgeSSHEd25519Recipient.label, length: 32)
                if let fileKey = ChaChaPolyOpener(key: wrapKey).open(stanza.body, nonce: [UInt8](repeating: 0, count: 12)) { return fileKey }
            case .rsa(let rsa):
                guard stanza.arguments.count == 1 else { throw .header("malformed ssh-rsa stanza") }
                guard stanza.arguments[0] == tag else { continue }
                if let fileKey = rsa.decrypt(stanza.body), fileKey.count == 16 { return fileKey }
            }
        }
        return nil
    }
}
