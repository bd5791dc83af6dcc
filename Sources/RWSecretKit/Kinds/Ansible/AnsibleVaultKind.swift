/// Ansible Vault 1.1 and 1.2 (`$ANSIBLE_VAULT;1.2;AES256;LABEL`): PBKDF2-SHA256 (10,000
/// iterations) gives an AES-256-CTR key, an HMAC-SHA256 key and the counter's start; the HMAC
/// over the ciphertext is checked before anything is decrypted.
package enum AnsibleVaultKind: MessageKind {
    package static let name = MessageKindName.ansibleVault
    static let magic = Array("$ANSIBLE_VAULT;".utf8)
    static let iterations = 10_000
    /// A vault larger than this (as text) is not read.
    package static let sizeLimit = 64 << 20

    /// A parsed envelope.
    package struct Header: Sendable {
        /// "1.1" or "1.2".
        package let version: String
        /// The vault id of a 1.2 envelope.
        package let vaultID: String?
        let salt: [UInt8]
        let hmac: [UInt8]
        let ciphertext: [UInt8]
    }

    package static func detect(_ prefix: ArraySlice<UInt8>) -> Bool {
        prefix.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }.starts(with: magic)
    }

    package static func parseHeader(_ input: KindInput) throws(KindError) -> Header {
        try parse(input.readAll(limit: sizeLimit))
    }

    /// Parses the text of one vault (a whole file, or a YAML value with its indentation removed).
    package static func parse(_ text: [UInt8]) throws(KindError) -> Header {
        // The first line (ended by LF, CR or CRLF, as Python's splitlines() cuts), then the hex
        // of every further line joined.
        let firstEnd = text.firstIndex { $0 == 0x0a || $0 == 0x0d } ?? text.count
        let first = trimmed(text[..<firstEnd])
        guard first.starts(with: magic) else { throw .header("not an Ansible Vault") }
        let fields = first.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { String(decoding: trimmed($0), as: UTF8.self) }
        guard fields.count >= 3 else { throw .header("malformed $ANSIBLE_VAULT line") }
        let version = fields[1]
        guard version == "1.1" || version == "1.2" else { throw .header("unsupported Ansible Vault version \(version)") }
        guard fields[2] == "AES256" else { throw .header("unsupported Ansible Vault cipher \(fields[2])") }
        let vaultID = fields.count >= 4 ? fields[3] : nil
        guard let inner = unhexlify(text[firstEnd...], skippingLineEnds: true) else { throw .header("the body is not hexadecimal") }
        let parts = inner.split(separator: 0x0a, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let salt = unhexlify(parts[0]), let hmac = unhexlify(parts[1]), hmac.count == 32,
              let ciphertext = unhexlify(parts[2]) else {
            throw .header("malformed Ansible Vault body")
        }
        guard !salt.isEmpty, !ciphertext.isEmpty, ciphertext.count % 16 == 0 else { throw .header("malformed Ansible Vault body") }
        return Header(version: version, vaultID: vaultID, salt: salt, hmac: hmac, ciphertext: ciphertext)
    }

    /// Python's `binascii.unhexlify`: an even number of hex digits, either case, nothing else
    /// (but CR and LF when `skippingLineEnds`, for the lines of a vault).
    static func unhexlify(_ text: ArraySlice<UInt8>, skippingLineEnds: Bool = false) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: text.count / 2)
        let count: Int? = text.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                var high: UInt8 = 0
                var haveHigh = false
                var written = 0
                for c in input {
                    let nibble: UInt8
                    switch c {
                    case 0x30...0x39: nibble = c &- 0x30
                    case 0x61...0x66: nibble = c &- 0x57
                    case 0x41...0x46: nibble = c &- 0x37
                    case 0x0a where skippingLineEnds, 0x0d where skippingLineEnds: continue
                    default: return nil
                    }
                    if haveHigh {
                        output[written] = high << 4 | nibble
                        written += 1
                    } else {
                        high = nibble
                    }
                    haveHigh.toggle()
                }
                return haveHigh ? nil : written
            }
        }
        guard let count else { return nil }
        out.removeLast(out.count - count)
        return out
    }

    private static func trimmed(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d || $0 == 0x0b || $0 == 0x0c }
        var t = s.drop(while: isSpace)
        while let last = t.last, isSpace(last) { t.removeLast() }
        return t
    }

    package static func describeNoMatch(_ header: Header) -> [String] { [] }

    package static func unlock(_ header: Header, with credential: Credential) throws(KindError) -> Unlock<SecretBytes> {
        guard case .password(let password) = credential else { return .notApplicable }
        let keys = KindPrimitives.pbkdf2SHA256(password: password, salt: header.salt, iterations: iterations, length: 80)
        let mac = KindPrimitives.hmacSHA256(key: keys.slice(32..<64), data: header.ciphertext)
        return Crypto.constantTimeEqual(mac, header.hmac) ? .unlocked(keys) : .wrongCredential
    }

    package static func decryptBody(_ header: Header, key keys: SecretBytes, from _: KindInput, into sink: some PlaintextSink) throws(KindError) {
        var plain = KindPrimitives.aes256CTR(key: keys.slice(0..<32), iv: Array(keys.slice(64..<80).withUnsafeBytes { Array($0) }),
                                              input: header.ciphertext)
        defer { Crypto.cleanse(&plain) }
        // PKCS#7 padding (Ansible pads even in counter mode); the HMAC has already vouched for it.
        guard let pad = plain.last, pad >= 1, pad <= 16, plain.suffix(Int(pad)).allSatisfy({ $0 == pad }) else {
            throw .payload("bad padding")
        }
        let released = UnsafeMutableRawBufferPointer.allocate(byteCount: plain.count, alignment: 16)
        defer { Crypto.cleanse(released); released.deallocate() }
        plain.withUnsafeBytes { released.copyMemory(from: $0) }
        try sink.write(UnsafeRawBufferPointer(rebasing: released[0..<(plain.count - Int(pad))]))
    }
}
