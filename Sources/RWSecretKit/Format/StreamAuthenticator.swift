/// Computes the HMACs of several candidate keys over one message in a single pass.
///
/// Feed it the message's bytes in order (any chunking); it authenticates the
/// right region for the header's version and holds back the trailing 32 bytes
/// (the stored tag). Memory stays bounded whatever the message size.
public final class StreamAuthenticator {
    private let authenticators: [Authenticator]
    private let header: MessageHeader
    private var tail: [UInt8] = []
    private var consumed = 0

    /// One authenticator per HMAC key, for a message with `header`.
    public init(header: MessageHeader, hmacKeys: [SecretBytes]) {
        self.header = header
        authenticators = hmacKeys.map { Authenticator(key: $0) }
    }

    /// Feeds the next bytes of the whole message (header included).
    public func update(_ data: UnsafeRawBufferPointer) {
        var data = data
        // Skip the header bytes; v2 and v3 authenticate them up front.
        if consumed < header.length {
            let skip = min(header.length - consumed, data.count)
            consumed += skip
            data = UnsafeRawBufferPointer(rebasing: data[skip...])
            if consumed == header.length && header.hmacCoversHeader {
                header.bytes.withUnsafeBytes { bytes in authenticators.forEach { $0.update(bytes) } }
            }
        }
        guard data.count > 0 else { return }
        consumed += data.count
        if data.count >= Crypto.tagSize {
            tail.withUnsafeBytes { feed($0) }
            feed(UnsafeRawBufferPointer(rebasing: data[..<(data.count - Crypto.tagSize)]))
            tail = Array(data[(data.count - Crypto.tagSize)...])
        } else {
            tail.append(contentsOf: data)
            let excess = tail.count - Crypto.tagSize
            if excess > 0 {
                tail.withUnsafeBytes { feed(UnsafeRawBufferPointer(rebasing: $0[..<excess])) }
                tail.removeFirst(excess)
            }
        }
    }

    private func feed(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        for authenticator in authenticators { authenticator.update(bytes) }
    }

    /// The index of the first key whose HMAC matches the stored tag, or nil.
    /// Every comparison is constant-time. The authenticator cannot be used afterwards.
    public func firstMatch() throws(RNCryptorError) -> Int? {
        try header.validate(messageLength: consumed)
        var match: Int?
        for (index, authenticator) in authenticators.enumerated() {
            if Crypto.constantTimeEqual(authenticator.finalize(), tail) && match == nil { match = index }
        }
        return match
    }
}
