/// An age X25519 identity: the secret key written `AGE-SECRET-KEY-1…` (Bech32).
package final class AgeX25519Identity: Sendable {
    /// The 32-byte secret scalar.
    let secretKey: SecretBytes
    /// The matching public key (the recipient's share in a stanza's salt).
    let publicKey: [UInt8]

    /// Why an identity text was refused.
    package enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not valid Bech32, or not an X25519 secret key.
        case malformed(line: Int)
        /// A kind of age identity this build cannot use (the post-quantum hybrid, a plugin).
        case unsupported(line: Int, type: String)
        /// The text holds no identity at all.
        case empty

        package var description: String {
            switch self {
            case .malformed(let line): "line \(line): not an age identity (AGE-SECRET-KEY-1…)"
            case .unsupported(let line, let type): "line \(line): \(type) identities are not supported"
            case .empty: "no identity found"
            }
        }
    }

    /// Parses one `AGE-SECRET-KEY-1…` string.
    package convenience init?(_ text: String) {
        guard let (hrp, data) = AgeEncoding.decodeBech32(text), hrp == "age-secret-key-", data.count == 32,
              text.uppercased() == text else { return nil }
        self.init(secretKey: SecretBytes(data))
    }

    init?(secretKey: SecretBytes) {
        guard let publicKey = KindPrimitives.x25519PublicKey(privateKey: secretKey) else { return nil }
        self.secretKey = secretKey
        self.publicKey = publicKey
    }

    /// The identities of an age identity file: one per line, `#` comments and blank lines ignored.
    package static func parseFile(_ text: String) throws(ParseError) -> [AgeX25519Identity] {
        var skipped: [ParseError] = []
        return try parseFile(text, skipping: &skipped, skips: false)
    }

    /// As `parseFile`, but a post-quantum or plugin line among X25519 ones is skipped (`skipped`
    /// says which, for a warning) rather than refusing the file; a file of none but those is refused.
    package static func parseFile(_ text: String, skipped: inout [ParseError]) throws(ParseError) -> [AgeX25519Identity] {
        try parseFile(text, skipping: &skipped, skips: true)
    }

    private static func parseFile(_ text: String, skipping skipped: inout [ParseError], skips: Bool) throws(ParseError) -> [AgeX25519Identity] {
        var identities: [AgeX25519Identity] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            var line = Substring(rawLine)
            line = line.drop { $0 == " " || $0 == "\t" }
            while line.last == " " || line.last == "\t" { line.removeLast() }
            if line.isEmpty || line.hasPrefix("#") { continue }
            let unsupported: ParseError? = line.hasPrefix("AGE-SECRET-KEY-PQ-1") ? .unsupported(line: index + 1, type: "ML-KEM-768 + X25519 (post-quantum)")
                : line.hasPrefix("AGE-PLUGIN-") ? .unsupported(line: index + 1, type: "plugin") : nil
            if let unsupported {
                guard skips else { throw unsupported }
                skipped.append(unsupported)
                continue
            }
            guard let identity = AgeX25519Identity(String(line)) else { throw .malformed(line: index + 1) }
            identities.append(identity)
        }
        if identities.isEmpty, let first = skipped.first { throw first }
        guard !identities.isEmpty else { throw .empty }
        return identities
    }
}

extension AgeX25519Identity {
    /// The file key of the first `X25519` stanza of `stanzas` that this identity opens; nil when
    /// none does. Throws for a stanza with a low-order share (no key could open it).
    /// The stanzas' form was checked when the header was parsed.
    func unwrap(_ stanzas: [AgeKind.Stanza]) throws(KindError) -> SecretBytes? {
        for stanza in stanzas where stanza.type == "X25519" {
            guard stanza.arguments.count == 1, let share = AgeEncoding.decodeRaw(stanza.arguments[0].utf8), share.count == 32,
                  stanza.body.count == 32 else { throw .header("malformed X25519 stanza") }
            guard let shared = KindPrimitives.x25519(privateKey: secretKey, peer: share) else {
                throw .header("X25519 stanza with a low-order share")
            }
            let wrapKey = KindPrimitives.hkdfSHA256(key: shared, salt: share + publicKey,
                                                    info: Array("age-encryption.org/v1/X25519".utf8), length: 32)
            if let key = ChaChaPolyOpener(key: wrapKey).open(stanza.body, nonce: [UInt8](repeating: 0, count: 12)) { return key }
        }
        return nil
    }
}
