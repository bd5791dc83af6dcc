/// The deciphering of a message body, as its version defines it: AES-256-CBC
/// with PKCS#7 padding (v1–v3) or AES-256 in v0's counter mode.
///
/// Its output is **unverified** until a `BodyAuthenticator` has matched the tag:
/// every caller holds it back (`BodyEngine` returns it marked so,
/// `VerifiedStream` writes it to a private file).
final class BodyDecipher {
    fileprivate enum Engine { case cbc(Cipher), counter(LittleEndianCounterCipher) }
    fileprivate let engine: Engine

    /// Starts deciphering a body of a message with `header` under `encryptionKey`.
    init(header: MessageHeader, encryptionKey: SecretBytes) {
        engine = header.isCounterMode
            ? .counter(LittleEndianCounterCipher(key: encryptionKey, iv: header.iv))
            : .cbc(Cipher(.decrypt, key: encryptionKey, iv: header.iv))
    }

    /// Deciphers the next ciphertext bytes, appending to `plaintext`.
    func update(_ ciphertext: UnsafeRawBufferPointer, into plaintext: inout [UInt8]) {
        guard ciphertext.count > 0 else { return }
        switch engine {
        case .cbc(let cipher): cipher.update(ciphertext, into: &plaintext)
        case .counter(let cipher): cipher.update(ciphertext, into: &plaintext)
        }
    }

    /// Finishes: the last block with its padding checked and stripped (CBC).
    /// Returns false for bad padding.
    func finalize(into plaintext: inout [UInt8]) -> Bool {
        switch engine {
        case .cbc(let cipher): cipher.finalize(into: &plaintext)
        case .counter: true
        }
    }
}

extension BodyDecipher {
    /// Deciphers the next ciphertext bytes into `output` (room for `ciphertext.count + 16`
    /// bytes); returns the bytes written.
    func update(_ ciphertext: UnsafeRawBufferPointer, to output: UnsafeMutableRawPointer) -> Int {
        guard ciphertext.count > 0 else { return 0 }
        switch engine {
        case .cbc(let cipher): return cipher.update(ciphertext, to: output)
        case .counter(let cipher):
            var plaintext: [UInt8] = []
            defer { Crypto.cleanse(&plaintext) }
            cipher.update(ciphertext, into: &plaintext)
            plaintext.withUnsafeBytes { output.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            return plaintext.count
        }
    }
}

/// Random access into an AES-256-CBC body (v1–v3): a run of whole blocks deciphers on
/// its own given the ciphertext block before it (the IV for the first block), so the
/// ranges of a body can be deciphered in parallel, and in place.
///
/// Unverified like every decipher: called only once the HMAC has matched.
struct CBCRanges {
    let key: SecretBytes

    /// Deciphers `blocks` (a multiple of 16 bytes) in place; `previous`: the 16
    /// ciphertext bytes before them.
    func decipher(_ blocks: UnsafeMutableRawBufferPointer, previous: [UInt8]) {
        precondition(blocks.count % Crypto.blockSize == 0)
        let cipher = Cipher(.decrypt, key: key, iv: previous, padding: false)
        let written = cipher.update(UnsafeRawBufferPointer(blocks), to: blocks.baseAddress!)
        precondition(written == blocks.count)
    }

    /// The plaintext of a body's last block with its PKCS#7 padding checked and
    /// stripped (0–15 bytes), or nil for bad padding.
    func lastBlock(_ block: [UInt8], previous: [UInt8]) -> [UInt8]? {
        let cipher = Cipher(.decrypt, key: key, iv: previous)
        var plaintext: [UInt8] = []
        block.withUnsafeBytes { cipher.update($0, into: &plaintext) }
        guard cipher.finalize(into: &plaintext) else { Crypto.cleanse(&plaintext); return nil }
        return plaintext
    }
}
