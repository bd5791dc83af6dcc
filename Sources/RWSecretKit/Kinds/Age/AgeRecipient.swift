/// Someone an age file is written to: an `age1…` X25519 recipient, or an SSH public key
/// (`ssh-ed25519`, `ssh-rsa`) as age uses it. Each wraps the file key into its own stanza.
package protocol AgeRecipient: Sendable {
    /// The stanza that carries `fileKey` to this recipient.
    func wrap(fileKey: SecretBytes) throws(AgeRecipientError) -> AgeKind.Stanza
    /// The recipient as written (`age1…`, or the SSH key's type and base64).
    var text: String { get }
}

/// Why a recipient was refused. Facts only.
package enum AgeRecipientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a recipient rwsecret knows how to write to.
    case malformed(String)
    /// An identity (a secret key) where a recipient belongs.
    case secretKey
    /// A point that gives no shared secret (a low-order X25519 point).
    case lowOrder
    /// An RSA key smaller than 2048 bits (age refuses them).
    case weakRSA(bits: Int)
    /// A recipients file that holds none.
    case empty

    package var description: String {
        switch self {
        case .malformed(let why): why
        case .secretKey: "an identity (AGE-SECRET-KEY-1…) is not a recipient: give its recipient (age1…), e.g. from age-keygen -y"
        case .lowOrder: "the recipient is a low-order point (no shared secret): refused"
        case .weakRSA(let bits): "an ssh-rsa key of \(bits) bits is too small (at least 2048)"
        case .empty: "no recipient found"
        }
    }
}

/// An `age1…` X25519 recipient.
package struct AgeX25519Recipient: AgeRecipient {
    let publicKey: [UInt8]

    package init(publicKey: [UInt8]) throws(AgeRecipientError) {
        guard publicKey.count == 32 else { throw .malformed("not an X25519 public key") }
        self.publicKey = publicKey
    }

    package var text: String { AgeEncoding.encodeBech32(hrp: "age", data: publicKey) }

    package func wrap(fileKey: SecretBytes) throws(AgeRecipientError) -> AgeKind.Stanza {
        let ephemeral = SecretBytes(Crypto.randomBytes(count: 32))
        guard let share = KindPrimitives.x25519PublicKey(privateKey: ephemeral),
              let shared = KindPrimitives.x25519(privateKey: ephemeral, peer: publicKey) else { throw .lowOrder }
        let wrapKey = KindPrimitives.hkdfSHA256(key: shared, salt: share + publicKey, info: Array("age-encryption.org/v1/X25519".utf8), length: 32)
        let body = ChaChaPolySealer(key: wrapKey).seal(fileKey, nonce: [UInt8](repeating: 0, count: 12))
        return AgeKind.Stanza(type: "X25519", arguments: [String(decoding: AgeEncoding.encodeRaw(share), as: UTF8.self)], body: body)
    }
}

/// An `ssh-ed25519` public key: age's tweaked X25519 over the key's Montgomery form.
package struct AgeSSHEd25519Recipient: AgeRecipient {
    /// The key in SSH wire form (what the tag and the tweak are made of).
    let wire: [UInt8]
    let montgomery: [UInt8]

    init(wire: [UInt8], publicKey: [UInt8]) throws(AgeRecipientError) {
        guard let montgomery = KindPrimitives.ed25519PublicToX25519(publicKey) else { throw .malformed("not an Ed25519 public key") }
        self.wire = wire
        self.montgomery = montgomery
    }

    package var text: String { "ssh-ed25519 " + Base64.encode(wire) }

    static let label = Array("age-encryption.org/v1/ssh-ed25519".utf8)

    /// The tweak scalar, as age makes it: HKDF-SHA256 with an empty secret, the wire key as
    /// salt and the label as info. Its two steps are OpenSSL HMACs (RFC 5869: extract, then
    /// one block of expand), since OpenSSL's HKDF refuses an empty secret.
    static func tweak(wire: [UInt8]) -> SecretBytes {
        let prk = KindPrimitives.hmacSHA256(key: wire, data: [UInt8]())
        return SecretBytes(KindPrimitives.hmacSHA256(key: prk, data: label + [1]))
    }

    package func wrap(fileKey: SecretBytes) throws(AgeRecipientError) -> AgeKind.Stanza {
        let ephemeral = SecretBytes(Crypto.randomBytes(count: 32))
        guard let share = KindPrimitives.x25519PublicKey(privateKey: ephemeral),
              let shared = KindPrimitives.x25519(privateKey: ephemeral, peer: montgomery) else { throw .lowOrder }
        var sharedBytes = shared.withUnsafeBytes { Array($0) }
        defer { Crypto.cleanse(&sharedBytes) }
        guard let tweaked = KindPrimitives.x25519(privateKey: Self.tweak(wire: wire), peer: sharedBytes) else { throw .lowOrder }
        let wrapKey = KindPrimitives.hkdfSHA256(key: tweaked, salt: share + montgomery, info: Self.label, length: 32)
        let body = ChaChaPolySealer(key: wrapKey).seal(fileKey, nonce: [UInt8](repeating: 0, count: 12))
        return AgeKind.Stanza(type: "ssh-ed25519", arguments: [SSHKeys.tag(wire), String(decoding: AgeEncoding.encodeRaw(share), as: UTF8.self)], body: body)
    }
}

/// An `ssh-rsa` public key: RSA-OAEP-SHA256 of the file key.
package struct AgeSSHRSARecipient: AgeRecipient {
    let wire: [UInt8]
    let key: RSAKey

    init(wire: [UInt8], modulus: [UInt8], exponent: [UInt8]) throws(AgeRecipientError) {
        guard let key = KindPrimitives.rsaPublicKey(modulus: modulus, exponent: exponent) else { throw .malformed("not an RSA public key") }
        guard key.bits >= 2048 else { throw .weakRSA(bits: key.bits) }
        self.wire = wire
        self.key = key
    }

    package var text: String { "ssh-rsa " + Base64.encode(wire) }

    package func wrap(fileKey: SecretBytes) throws(AgeRecipientError) -> AgeKind.Stanza {
        guard let body = key.encrypt(fileKey) else { throw .malformed("RSA-OAEP encryption failed") }
        return AgeKind.Stanza(type: "ssh-rsa", arguments: [SSHKeys.tag(wire)], body: body)
    }
}

/// Reading recipients as age does (`-r` values and `-R` files).
package enum AgeRecipients {
    /// One recipient: `age1…`, or an SSH public key line (`ssh-ed25519 AAAA… [comment]`,
    /// `ssh-rsa AAAA… [comment]`, as in `authorized_keys` or `github.com/NAME.keys`).
    package static func parse(_ text: String) throws(AgeRecipientError) -> any AgeRecipient {
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.hasPrefix("age1"), let (hrp, _) = AgeEncoding.decodeBech32(trimmed), hrp.hasPrefix("age1"), hrp != "age1pq" {
            // age1NAME1…: a recipient for the plugin age-plugin-NAME (a YubiKey, a TPM, …).
            throw .malformed("a plugin recipient (age-plugin-\(hrp.dropFirst(4))): rwsecret does not run age plugins")
        }
        if trimmed.hasPrefix("age1") {
            guard let (hrp, data) = AgeEncoding.decodeBech32(trimmed), hrp == "age", data.count == 32, trimmed.lowercased() == trimmed else {
                throw .malformed("not a valid age1… recipient")
            }
            return try AgeX25519Recipient(publicKey: data)
        }
        if trimmed.uppercased().hasPrefix("AGE-SECRET-KEY-") { throw .secretKey }
        if trimmed.hasPrefix("age1pq1") || trimmed.hasPrefix("age1") { throw .malformed("an age recipient of a type rwsecret does not write to") }
        let fields = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 2, fields[0] == "ssh-ed25519" || fields[0] == "ssh-rsa" else {
            if let first = fields.first, first.hasPrefix("ssh-") || first.hasPrefix("ecdsa-") || first.hasPrefix("sk-") {
                throw .malformed("\(first) keys are not age recipients (age takes ssh-ed25519 and ssh-rsa)")
            }
            throw .malformed("not a recipient (age1…, ssh-ed25519 or ssh-rsa)")
        }
        guard let wire = AgeEncoding.decodePadded(ArraySlice(fields[1].utf8)) else { throw .malformed("the SSH key's base64 is invalid") }
        return try SSHKeys.recipient(wire: wire, type: String(fields[0]))
    }

    /// The recipients of an age recipients file: one per line, `#` comments and blank lines ignored.
    /// Errors name the line.
    package static func parseFile(_ text: String) throws(AgeRecipientError) -> [any AgeRecipient] {
        var skipped: [(line: Int, type: String)] = []
        return try parseFile(text, skipped: &skipped)
    }

    /// As `parseFile`; an SSH key of a type age does not encrypt to (`ecdsa-sha2-*`,
    /// `sk-ssh-ed25519@openssh.com`, `sk-ecdsa-…`, as a `github.com/NAME.keys` list holds)
    /// is skipped, named in `skipped` (line, type) for a warning, as `age -R` does.
    package static func parseFile(_ text: String, skipped: inout [(line: Int, type: String)]) throws(AgeRecipientError) -> [any AgeRecipient] {
        var recipients: [any AgeRecipient] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let trimmed = String(line).trimmingASCIIWhitespace()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if let type = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).first,
               type.hasPrefix("ecdsa-sha2-") || type.hasPrefix("sk-ssh-") || type.hasPrefix("sk-ecdsa-") {
                skipped.append((index + 1, String(type)))
                continue
            }
            do { recipients.append(try parse(trimmed)) } catch { throw .malformed("line \(index + 1): \(error)") }
        }
        guard !recipients.isEmpty else { throw .empty }
        return recipients
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeLast() }
        return String(s)
    }
}

extension AgeEncoding {
    /// Bech32 of `data` under `hrp` (lower case; age writes identities upper case).
    static func encodeBech32(hrp: String, data: [UInt8]) -> String {
        let hrpBytes = Array(hrp.utf8)
        var values: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in data {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                values.append(UInt8((accumulator >> UInt32(bits)) & 31))
            }
        }
        if bits > 0 { values.append(UInt8((accumulator << UInt32(5 - bits)) & 31)) }
        let expanded = hrpBytes.map { $0 >> 5 } + [0] + hrpBytes.map { $0 & 31 }
        let check = polymod(expanded + values + [0, 0, 0, 0, 0, 0]) ^ 1
        let checksum = (0..<6).map { UInt8((check >> UInt32(5 * (5 - $0))) & 31) }
        return hrp + "1" + String(decoding: (values + checksum).map { bech32Charset[Int($0)] }, as: UTF8.self)
    }
}

extension AgeX25519Identity {
    /// The recipient of this identity (`age1…`), what `age-keygen -y` prints.
    package var recipient: String { AgeEncoding.encodeBech32(hrp: "age", data: publicKey) }

    /// A fresh identity from OpenSSL's randomness.
    package static func generate() -> AgeX25519Identity {
        AgeX25519Identity(secretKey: SecretBytes(Crypto.randomBytes(count: 32)))!
    }

    /// The identity as age writes it (`AGE-SECRET-KEY-1…`, upper case), for an identity file only.
    package var secretKeyText: SecretBytes {
        secretKey.withUnsafeBytes { SecretBytes(utf8: AgeEncoding.encodeBech32(hrp: "age-secret-key-", data: Array($0)).uppercased()) }
    }
}
