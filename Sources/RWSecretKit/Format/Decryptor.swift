/// Decrypts one RNCryptor message fed in pieces, in bounded memory.
///
/// - Important: The plaintext returned by `update(_:)` is **unverified**: the
///   HMAC covers the whole message and is checked only by `finalize()`. Hold
///   every byte back (or write it somewhere you can discard) until
///   `finalize()` returns without throwing; if it throws, the plaintext
///   handed out so far is attacker-controlled and must be thrown away.
///
/// Memory stays bounded whatever the message size: at most the header and the
/// last 32 bytes are held back (the HMAC can only be recognised at the end).
///
/// A password is used in the reference implementation's form only (a
/// non-ASCII password written by another implementation may need one of the
/// other forms of `MessageHeader.kdfPasswords(_:)`, which only a whole message,
/// `Message` or the chain, can try).
public final class Decryptor {
    private enum Credential { case password(SecretBytes), keys(MessageKeys) }
    private enum State { case header([UInt8]), body(BodyDecryptor), finished }

    private let credential: Credential
    private let iterations: Int
    private var state: State = .header([])

    /// A decryptor for password-based messages (any version), with `iterations` PBKDF2 rounds.
    public init(password: SecretBytes, iterations: Int = KeyDerivation.iterations) {
        precondition((1...KeyDerivation.maximumIterations).contains(iterations), "PBKDF2 iteration count out of range")
        credential = .password(password)
        self.iterations = iterations
    }
    /// A decryptor for key-based messages.
    public init(keys: MessageKeys) {
        credential = .keys(keys)
        iterations = KeyDerivation.iterations
    }

    /// Feeds the next bytes of the message; returns plaintext that is
    /// **unverified until `finalize()` succeeds**.
    public func update(_ data: some ContiguousByteStorage) throws(RNCryptorError) -> [UInt8] {
        var result: Result<[UInt8], RNCryptorError> = .success([])
        data.withUnsafeBytes { raw in result = Result { () throws(RNCryptorError) in try update(raw) } }
        return try result.get()
    }

    /// Feeds the next bytes of the message; returns plaintext that is
    /// **unverified until `finalize()` succeeds**.
    public func update(_ data: UnsafeRawBufferPointer) throws(RNCryptorError) -> [UInt8] {
        switch state {
        case .finished:
            preconditionFailure("Decryptor used after finalize()")
        case .body(let body):
            return body.update(data)
        case .header(var pending):
            pending.append(contentsOf: data)
            let length: Int
            do { length = try MessageHeader.headerLength(of: pending, moreMayFollow: true) } catch .tooShort { state = .header(pending); return [] }
            guard pending.count >= length else { state = .header(pending); return [] }
            let header = try MessageHeader(parsing: pending)
            let body = try BodyDecryptor(header: header, keys: try keys(for: header))
            state = .body(body)
            return pending.count > length ? pending[length...].withUnsafeBytes { body.update($0) } : []
        }
    }

    /// Verifies the HMAC (in constant time), then the padding, and returns the
    /// last plaintext bytes. Only after this returns is the plaintext authentic.
    public func finalize() throws(RNCryptorError) -> [UInt8] {
        defer { state = .finished }
        switch state {
        case .finished: preconditionFailure("Decryptor finalized twice")
        case .header(let pending):
            _ = try MessageHeader.headerLength(of: pending)
            throw .tooShort
        case .body(let body):
            return try body.finalize()
        }
    }

    private func keys(for header: MessageHeader) throws(RNCryptorError) -> MessageKeys {
        switch (credential, header.salts) {
        case (.keys(let keys), nil): return keys
        case (.keys, _?): throw .passwordBasedMessage
        case (.password, nil): throw .keyBasedMessage
        case (.password(let password), let salts?):
            let kdfPassword = header.kdfPassword(password)
            let derived = KeyDerivation.keys([(kdfPassword, salts.encryption), (kdfPassword, salts.hmac)], iterations: iterations)
            return MessageKeys(encryptionKey: derived[0], hmacKey: derived[1])
        }
    }
}

/// Decrypts the part of a message after its header, given the keys.
///
/// Holds back the trailing 32 bytes (the would-be HMAC); everything before them
/// is authenticated and deciphered as it arrives. The output is unverified
/// until `finalize()` succeeds.
public final class BodyDecryptor {
    private let header: MessageHeader
    private let authenticator: BodyAuthenticator
    private let decipher: BodyDecipher
    private var tail: [UInt8] = []
    private var bodyCount = 0

    /// Starts decrypting the body of a message with `header` under `keys`.
    public init(header: MessageHeader, keys: MessageKeys) throws(RNCryptorError) {
        self.header = header
        authenticator = BodyAuthenticator(header: header, hmacKey: keys.hmacKey)
        decipher = BodyDecipher(header: header, encryptionKey: keys.encryptionKey)
        tail.reserveCapacity(2 * Crypto.tagSize)
    }

    /// Feeds body bytes; returns **unverified** plaintext.
    public func update(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        guard data.count > 0 else { return out }
        bodyCount += data.count
        if data.count >= Crypto.tagSize {
            // Everything held back so far, and all but the last 32 new bytes, is ciphertext.
            out.reserveCapacity(tail.count + data.count + Crypto.blockSize)
            tail.withUnsafeBytes { process($0, into: &out) }
            process(UnsafeRawBufferPointer(rebasing: data[..<(data.count - Crypto.tagSize)]), into: &out)
            tail.removeAll(keepingCapacity: true)
            tail.append(contentsOf: data[(data.count - Crypto.tagSize)...])
        } else {
            tail.append(contentsOf: data)
            let excess = tail.count - Crypto.tagSize
            if excess > 0 {
                tail.withUnsafeBytes { process(UnsafeRawBufferPointer(rebasing: $0[..<excess]), into: &out) }
                tail.removeFirst(excess)
            }
        }
        return out
    }

    /// Feeds body bytes; returns **unverified** plaintext.
    public func update(_ data: some ContiguousByteStorage) -> [UInt8] {
        data.withUnsafeBytes { update($0) }
    }

    private func process(_ ciphertext: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        guard ciphertext.count > 0 else { return }
        authenticator.update(ciphertext)
        decipher.update(ciphertext, into: &out)
    }

    /// Checks the length, the HMAC (constant time) and then the padding.
    public func finalize() throws(RNCryptorError) -> [UInt8] {
        try header.validate(messageLength: header.length + bodyCount)
        guard authenticator.matches(tag: tail) else { throw .hmacMismatch }
        var out: [UInt8] = []
        guard decipher.finalize(into: &out) else { throw .badPadding }
        return out
    }
}
