/// age v1 (age-encryption.org/v1), binary or ASCII-armored.
///
/// Credentials: a password for an `scrypt` stanza (work factor at most 22, as age), an X25519
/// identity for `X25519` stanzas. Other stanza types (plugins, the post-quantum hybrid, grease)
/// are kept for the no-match message and otherwise ignored. The header MAC is checked as soon
/// as a file key is unwrapped; the STREAM payload is checked chunk by chunk, and the final
/// chunk must be seen with nothing after it.
package enum AgeKind: MessageKind {
    package static let name = MessageKindName.age
    static let intro = Array("age-encryption.org/v1\n".utf8)
    /// The highest scrypt work factor (log2 N) tried: age's own limit.
    package static let maxWorkFactor = 22
    static let chunkSize = 64 * 1024
    private static let headerLimit = 1 << 20

    /// One recipient stanza (the public ``Age/Stanza``).
    package typealias Stanza = Age.Stanza

    /// A parsed header.
    package struct Header {
        package let stanzas: [Stanza]
        /// The header bytes the MAC covers: from the intro up to and including `---`.
        let authenticated: [UInt8]
        let mac: [UInt8]
        /// The input the payload is read from (the armor decoder for an armored file).
        let payload: KindInput
        package let armored: Bool

        /// The scrypt stanza's salt and work factor, when it has one (then it has no other).
        var scrypt: (salt: [UInt8], logN: Int, body: [UInt8])? {
            guard let s = stanzas.first, s.type == "scrypt" else { return nil }
            return (AgeEncoding.decodeRaw(s.arguments[0].utf8)!, Int(s.arguments[1])!, s.body)
        }
    }

    package static func detect(_ prefix: ArraySlice<UInt8>) -> Bool {
        prefix.starts(with: "age-encryption.org/".utf8) || AgeArmorSource.detect(prefix)
    }

    package static func parseHeader(_ input: KindInput) throws(KindError) -> Header {
        let head = try input.peek(detectionLength)
        let armored = AgeArmorSource.detect(head)
        if !armored, detectAfterText(head) { throw .armor("text before the BEGIN line (only whitespace may come before an age armor)") }
        let source = armored ? KindInput(AgeArmorSource(input)) : input
        guard let first = try source.readLine(limit: 256) else { throw .header("file is empty") }
        guard first.elementsEqual(intro) else {
            if first.starts(with: "age-encryption.org/".utf8) { throw .header("unsupported version") }
            throw .header("not an age file")
        }
        var authenticated = Array(first)
        var stanzas: [Stanza] = []
        while true {
            guard authenticated.count < headerLimit else { throw .header("header larger than \(headerLimit) bytes") }
            guard let line = try source.readLine(limit: 64 * 1024), line.last == UInt8(ascii: "\n") else {
                throw .header("header ends before its MAC line")
            }
            if line.starts(with: "---".utf8) {
                let fields = line.dropLast().split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
                guard fields.count == 2, fields[0].elementsEqual("---".utf8), let mac = AgeEncoding.decodeRaw(fields[1]), mac.count == 32 else {
                    throw .header("malformed MAC line")
                }
                authenticated += "---".utf8
                let header = Header(stanzas: stanzas, authenticated: authenticated, mac: mac, payload: source, armored: armored)
                try check(header)
                return header
            }
            authenticated += line
            stanzas.append(try readStanza(opening: line, from: source, authenticated: &authenticated))
        }
    }

    private static func readStanza(opening line: ArraySlice<UInt8>, from source: KindInput, authenticated: inout [UInt8]) throws(KindError) -> Stanza {
        let fields = line.dropLast().split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count >= 2, fields[0].elementsEqual("->".utf8) else { throw .header("malformed stanza line") }
        for field in fields.dropFirst() {
            guard !field.isEmpty, field.allSatisfy({ $0 >= 33 && $0 <= 126 }) else { throw .header("malformed stanza line") }
        }
        let strings = fields.dropFirst().map { String(decoding: $0, as: UTF8.self) }
        var body: [UInt8] = []
        while true {
            guard authenticated.count < headerLimit else { throw .header("header larger than \(headerLimit) bytes") }
            guard let bodyLine = try source.readLine(limit: 64 * 1024), bodyLine.last == UInt8(ascii: "\n") else {
                throw .header("header ends inside a stanza")
            }
            authenticated += bodyLine
            let text = bodyLine.dropLast()
            guard text.count <= 64, !text.contains(UInt8(ascii: "\r")), let decoded = AgeEncoding.decodeRaw(text) else {
                if text.starts(with: "---".utf8) || text.starts(with: "->".utf8) {
                    throw .header("a stanza ended without a short body line")
                }
                throw .header("malformed stanza body line")
            }
            body += decoded
            if decoded.count < 48 { return Stanza(type: strings[0], arguments: Array(strings.dropFirst()), body: body) }
        }
    }

    /// The rules for the stanzas rwsecret can unwrap, checked before any credential is tried.
    private static func check(_ header: Header) throws(KindError) {
        for stanza in header.stanzas {
            switch stanza.type {
            case "X25519":
                guard stanza.arguments.count == 1, let share = AgeEncoding.decodeRaw(stanza.arguments[0].utf8), share.count == 32 else {
                    throw .header("malformed X25519 stanza")
                }
                guard stanza.body.count == 32 else { throw .header("X25519 stanza with a file key that is not 16 bytes") }
            case "scrypt":
                guard header.stanzas.count == 1 else { throw .header("an scrypt stanza must be the only one") }
                guard stanza.arguments.count == 2, let salt = AgeEncoding.decodeRaw(stanza.arguments[0].utf8), salt.count == 16 else {
                    throw .header("malformed scrypt stanza")
                }
                let factor = stanza.arguments[1]
                guard let firstDigit = factor.utf8.first, firstDigit != UInt8(ascii: "0"),
                      factor.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                    throw .header("malformed scrypt work factor")
                }
                guard factor.utf8.count <= 2, let logN = Int(factor), logN <= maxWorkFactor else {
                    throw .workFactorTooHigh(Int(factor) ?? Int.max)
                }
                guard stanza.body.count == 32 else { throw .header("scrypt stanza with a file key that is not 16 bytes") }
            default:
                continue
            }
        }
    }

    package static func describeNoMatch(_ header: Header) -> [String] { header.stanzas.map(\.type) }

    /// Whether a credential of this type has a stanza to try in `header`.
    package static func accepts(_ header: Header, _ credential: Credential) -> Bool {
        switch credential {
        case .password: header.scrypt != nil
        case .ageX25519: header.stanzas.contains { $0.type == "X25519" }
        case .ageSSH(let identity): header.stanzas.contains { $0.type == identity.stanzaType }
        case .openPGPKey: false
        // A consumer's identity: offered every header without an scrypt stanza (it says which stanzas are its).
        case .identity: header.scrypt == nil && !header.stanzas.isEmpty
        }
    }

    package static func unlock(_ header: Header, with credential: Credential) throws(KindError) -> Unlock<SecretBytes> {
        let fileKey: SecretBytes?
        switch credential {
        case .openPGPKey:
            return .notApplicable
        case .password(let password):
            guard let scrypt = header.scrypt else { return .notApplicable }
            switch unwrapScrypt(scrypt, password: password) {
            case .refused: throw .header("scrypt refused work factor \(scrypt.logN)")
            case .outOfMemory: throw AgeScryptBatch.outOfMemory(logN: scrypt.logN)
            case .wrong: fileKey = nil
            case .opened(let key): fileKey = key
            }
        case .ageSSH(let identity):
            guard accepts(header, credential) else { return .notApplicable }
            fileKey = try identity.unwrap(header.stanzas)
        case .ageX25519(let identity):
            guard accepts(header, credential) else { return .notApplicable }
            fileKey = try identity.unwrap(header.stanzas)
        case .identity(let identity):
            guard accepts(header, credential) else { return .notApplicable }
            let unwrapped: SecretBytes?
            do { unwrapped = try identity.unwrap(header.stanzas) } catch { throw .refused("identity \(identity.name): \(error)") }
            if let unwrapped, unwrapped.count != 16 {
                throw .refused("identity \(identity.name): a file key of \(unwrapped.count) bytes (age's are 16)")
            }
            fileKey = unwrapped
        }
        guard let fileKey else { return .wrongCredential }
        try checkMAC(header, fileKey: fileKey)
        return .unlocked(fileKey)
    }

    /// What one password does to an scrypt stanza.
    package enum ScryptUnwrap: Sendable {
        /// OpenSSL refused the parameters (not expected within the work factor limit).
        case refused
        /// scrypt's memory could not be allocated (a process or cgroup limit).
        case outOfMemory
        /// The stanza's tag does not match: another password.
        case wrong
        /// The file key (its header MAC still to check).
        case opened(SecretBytes)
    }

    /// One scrypt, then the stanza's ChaCha20-Poly1305 tag: the cheap check after the costly KDF.
    static func unwrapScrypt(_ scrypt: (salt: [UInt8], logN: Int, body: [UInt8]), password: SecretBytes) -> ScryptUnwrap {
        let key: SecretBytes
        switch KindPrimitives.scryptDerivation(password: password, salt: Array("age-encryption.org/v1/scrypt".utf8) + scrypt.salt,
                                               logN: scrypt.logN, length: 32) {
        case .success(let derived): key = derived
        case .failure(.refused): return .refused
        case .failure(.outOfMemory): return .outOfMemory
        }
        guard let fileKey = ChaChaPolyOpener(key: key).open(scrypt.body, nonce: [UInt8](repeating: 0, count: 12)) else { return .wrong }
        return .opened(fileKey)
    }

    /// The header MAC under `fileKey`: a mismatch means the header was changed.
    static func checkMAC(_ header: Header, fileKey: SecretBytes) throws(KindError) {
        let macKey = KindPrimitives.hkdfSHA256(key: fileKey, salt: [], info: Array("header".utf8), length: 32)
        let mac = KindPrimitives.hmacSHA256(key: macKey, data: header.authenticated)
        guard Crypto.constantTimeEqual(mac, header.mac) else { throw .headerMAC }
    }

    package static func decryptBody(_ header: Header, key fileKey: SecretBytes, from _: KindInput, into sink: some PlaintextSink) throws(KindError) {
        let input = header.payload
        let nonce = try input.read(count: 16)
        guard nonce.count == 16 else { throw .header("payload nonce missing or short") }
        let streamKey = KindPrimitives.hkdfSHA256(key: fileKey, salt: nonce, info: Array("payload".utf8), length: 32)
        try AgeStream.decrypt(from: input, key: streamKey, into: sink)
    }
}

/// age's STREAM: 64 KiB chunks sealed with ChaCha20-Poly1305 under an 11-byte big-endian
/// counter and a last-chunk flag.
enum AgeStream {
    static func decrypt(from input: KindInput, key: SecretBytes, into sink: some PlaintextSink) throws(KindError) {
        let sealedSize = AgeKind.chunkSize + ChaChaPolyOpener.tagSize
        let opener = ChaChaPolyOpener(key: key)
        let sealed = UnsafeMutableRawBufferPointer.allocate(byteCount: sealedSize, alignment: 16)
        let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: AgeKind.chunkSize, alignment: 16)
        defer {
            Crypto.cleanse(plain)
            sealed.deallocate()
            plain.deallocate()
        }
        var counter: UInt64 = 0
        while true {
            let n = try input.readFull(into: sealed)
            guard n > 0 else { throw .payload("the final chunk is missing (truncated file)") }
            var last = n < sealedSize
            if last && counter > 0 && n == ChaChaPolyOpener.tagSize {
                throw .payload("the final chunk is empty")
            }
            let chunk = UnsafeRawBufferPointer(rebasing: sealed[0..<n])
            var opened = opener.open(chunk, nonce: nonce(counter, last: last), into: plain)
            if !opened && !last {
                // A full-size final chunk.
                last = true
                opened = opener.open(chunk, nonce: nonce(counter, last: true), into: plain)
            }
            guard opened else { throw .payload("chunk \(counter) does not authenticate") }
            if last {
                guard try input.isAtEnd() else { throw .payload("data after the final chunk") }
                try sink.write(UnsafeRawBufferPointer(rebasing: plain[0..<(n - ChaChaPolyOpener.tagSize)]))
                return
            }
            try sink.write(UnsafeRawBufferPointer(rebasing: plain[0..<(n - ChaChaPolyOpener.tagSize)]))
            counter += 1
        }
    }

    private static func nonce(_ counter: UInt64, last: Bool) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 12)
        for i in 0..<8 { nonce[10 - i] = UInt8(truncatingIfNeeded: counter >> UInt64(8 * i)) }
        nonce[11] = last ? 1 : 0
        return nonce
    }
}
