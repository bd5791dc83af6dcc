/// Writes an age v1 file, streamed: the header (a stanza per recipient, or one scrypt stanza),
/// its MAC, the payload nonce, then STREAM chunks of 64 KiB sealed with ChaCha20-Poly1305.
/// The file key, nonces and ephemeral keys come from OpenSSL's `RAND_bytes`. With `armor`
/// the output is age's ASCII armor (64-column padded base64 between BEGIN and END lines).
///
/// `update` returns the bytes ready so far; `finalize` the rest (the last chunk is sealed only
/// there, so an empty input still makes one empty final chunk, as age does).
package final class AgeEncryptor {
    /// age's default scrypt work factor (log2 N): about a second, 256 MiB.
    package static let defaultWorkFactor = 18

    private let sealer: ChaChaPolySealer
    private var pending: [UInt8] = []
    private var counter: UInt64 = 0
    private var armor: AgeArmorWriter?
    private var started: [UInt8]
    private var finished = false

    /// An encryptor to `recipients` (at least one).
    package convenience init(recipients: [any AgeRecipient], armor: Bool) throws(AgeRecipientError) {
        precondition(!recipients.isEmpty)
        let fileKey = SecretBytes(Crypto.randomBytes(count: 16))
        var stanzas: [AgeKind.Stanza] = []
        for recipient in recipients { stanzas.append(try recipient.wrap(fileKey: fileKey)) }
        self.init(fileKey: fileKey, stanzas: stanzas, armor: armor)
    }

    /// An encryptor under `password` (scrypt with work factor `logN`).
    package convenience init(password: SecretBytes, workFactor logN: Int = AgeEncryptor.defaultWorkFactor, armor: Bool) {
        let fileKey = SecretBytes(Crypto.randomBytes(count: 16))
        let salt = Crypto.randomBytes(count: 16)
        guard let key = KindPrimitives.scrypt(password: password, salt: Array("age-encryption.org/v1/scrypt".utf8) + salt, logN: logN, length: 32) else {
            preconditionFailure("OpenSSL refused scrypt work factor \(logN)")
        }
        let body = ChaChaPolySealer(key: key).seal(fileKey, nonce: [UInt8](repeating: 0, count: 12))
        let stanza = AgeKind.Stanza(type: "scrypt", arguments: [String(decoding: AgeEncoding.encodeRaw(salt), as: UTF8.self), String(logN)], body: body)
        self.init(fileKey: fileKey, stanzas: [stanza], armor: armor)
    }

    /// An encryptor whose header carries `stanzas`, each wrapping `fileKey` (16 random bytes).
    package init(fileKey: SecretBytes, stanzas: [AgeKind.Stanza], armor: Bool) {
        var header = AgeKind.intro
        for stanza in stanzas {
            header += Array((["->", stanza.type] + stanza.arguments).joined(separator: " ").utf8) + [0x0a]
            let encoded = AgeEncoding.encodeRaw(stanza.body)
            var offset = 0
            // Lines of 64 columns; the last one is shorter (empty when the body fills whole lines).
            while true {
                let line = encoded[offset..<min(offset + 64, encoded.count)]
                header += line + [0x0a]
                offset += line.count
                if line.count < 64 { break }
            }
        }
        header += "---".utf8
        let macKey = KindPrimitives.hkdfSHA256(key: fileKey, salt: [], info: Array("header".utf8), length: 32)
        let mac = KindPrimitives.hmacSHA256(key: macKey, data: header)
        header += [0x20] + AgeEncoding.encodeRaw(mac) + [0x0a]
        let nonce = Crypto.randomBytes(count: 16)
        header += nonce
        sealer = ChaChaPolySealer(key: KindPrimitives.hkdfSHA256(key: fileKey, salt: nonce, info: Array("payload".utf8), length: 32))
        started = header
        if armor { self.armor = AgeArmorWriter() }
    }

    deinit { Crypto.cleanse(&pending) }

    /// Takes more plaintext; returns the output ready so far.
    package func update(_ bytes: some Collection<UInt8>) -> [UInt8] {
        precondition(!finished)
        var out = started
        started = []
        pending.append(contentsOf: bytes)
        // Seal a chunk only when more follows it: the final chunk is sealed by `finalize`.
        // Sealed in place at the end of `out`, with no array per chunk.
        let size = AgeKind.chunkSize, sealed = size + ChaChaPolyOpener.tagSize
        let chunks = pending.isEmpty ? 0 : (pending.count - 1) / size
        if chunks > 0 {
            let base = out.count
            out.append(contentsOf: repeatElement(0, count: chunks * sealed))
            pending.withUnsafeBytes { input in
                out.withUnsafeMutableBytes { output in
                    for i in 0..<chunks {
                        sealer.seal(UnsafeRawBufferPointer(rebasing: input[i * size..<(i + 1) * size]), nonce: nonce(last: false),
                                    into: UnsafeMutableRawBufferPointer(rebasing: output[(base + i * sealed)...]))
                    }
                }
            }
            Crypto.cleanse(&pending, range: 0..<chunks * size)
            pending.removeFirst(chunks * size)
        }
        return armor == nil ? out : armor!.update(out)
    }

    /// Seals the final chunk; returns the rest of the output.
    package func finalize() -> [UInt8] {
        precondition(!finished)
        finished = true
        var out = started
        started = []
        out += seal(pending[...], last: true)
        Crypto.cleanse(&pending)
        pending = []
        guard armor != nil else { return out }
        return armor!.update(out) + armor!.finish()
    }

    /// The next chunk's nonce: an 11-byte big-endian counter and the last-chunk flag.
    private func nonce(last: Bool) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 12)
        for i in 0..<8 { nonce[10 - i] = UInt8(truncatingIfNeeded: counter >> UInt64(8 * i)) }
        nonce[11] = last ? 1 : 0
        counter += 1
        return nonce
    }

    private func seal(_ chunk: ArraySlice<UInt8>, last: Bool) -> [UInt8] {
        let nonce = nonce(last: last)
        var out = [UInt8](repeating: 0, count: chunk.count + ChaChaPolyOpener.tagSize)
        chunk.withUnsafeBytes { p in out.withUnsafeMutableBytes { sealer.seal(p, nonce: nonce, into: $0) } }
        return out
    }
}

/// age's ASCII armor, written as a stream: lines of 64 columns of padded base64.
struct AgeArmorWriter {
    private var pending: [UInt8] = []
    private var begun = false

    mutating func update(_ bytes: [UInt8]) -> [UInt8] {
        pending += bytes
        var out: [UInt8] = begun ? [] : AgeArmorSource.beginLine + [0x0a]
        begun = true
        let lines = pending.count / 48
        guard lines > 0 else { return out }
        out.reserveCapacity(out.count + lines * 65)
        pending.withUnsafeBufferPointer { input in
            for line in 0..<lines {
                Base64.encode(UnsafeBufferPointer(rebasing: input[line * 48..<line * 48 + 48]), padded: true, into: &out)
                out.append(0x0a)
            }
        }
        pending.removeFirst(lines * 48)
        return out
    }

    mutating func finish() -> [UInt8] {
        var out: [UInt8] = begun ? [] : AgeArmorSource.beginLine + [0x0a]
        begun = true
        if !pending.isEmpty { out += Base64.encode(pending).utf8 + [0x0a] }
        pending = []
        return out + AgeArmorSource.endLine + [0x0a]
    }
}

extension Crypto {
    /// Wipes part of `bytes`.
    static func cleanse(_ bytes: inout [UInt8], range: Range<Int>) {
        bytes.withUnsafeMutableBytes { cleanse(UnsafeMutableRawBufferPointer(rebasing: $0[range])) }
    }
}
