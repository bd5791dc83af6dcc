/// The authentication of a message body, as its version defines it: the one
/// place that knows which bytes are covered and what the tag is.
///
/// v1–v3: HMAC-SHA256 of the ciphertext, preceded by the header for v2 and v3;
/// the tag is the last 32 bytes. v0: HMAC-SHA1 of the ciphertext only; the
/// tag is its 20 bytes followed by 12 zero bytes.
final class BodyAuthenticator {
    private let authenticator: Authenticator
    private let isCounterMode: Bool

    /// Starts authenticating a body of a message with `header` under `hmacKey`.
    init(header: MessageHeader, hmacKey: SecretBytes) {
        isCounterMode = header.isCounterMode
        authenticator = Authenticator(key: hmacKey, digest: isCounterMode ? .sha1 : .sha256)
        if header.hmacCoversHeader { authenticator.update(header.bytes) }
    }

    /// Adds ciphertext (never the tag).
    func update(_ ciphertext: UnsafeRawBufferPointer) { authenticator.update(ciphertext) }

    /// Whether `tag` (the message's last 32 bytes) is this body's, compared in constant time.
    /// The authenticator cannot be used afterwards.
    func matches(tag: [UInt8]) -> Bool {
        var expected = authenticator.finalize()
        // v0: the 20-byte SHA-1 tag, then zero bytes up to the 32 the message carries.
        if isCounterMode { expected += [UInt8](repeating: 0, count: Crypto.tagSize - expected.count) }
        return Crypto.constantTimeEqual(expected, tag)
    }
}
