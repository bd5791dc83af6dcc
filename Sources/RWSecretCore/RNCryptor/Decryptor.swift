/// Decrypts one RNCryptor message fed in pieces, and releases the plaintext only
/// once the HMAC has verified.
///
/// `update(_:)` authenticates and deciphers as the bytes arrive but hands nothing
/// out; `finalize()` checks the HMAC (in constant time) and the padding, and only
/// then returns the whole plaintext. Held plaintext is wiped when the decryptor is
/// released or the message fails. Memory is the plaintext's size: for messages too
/// large for memory use `VerifiedStream` (a file or descriptor, bounded memory).
///
/// A password is used in the reference implementation's form only (a non-ASCII
/// password written by another implementation may need another of its forms,
/// which `Message` and the chain try).
///
/// `Sendable`, so that it can be handed to another task; the pieces must still come in
/// order. `update` and `finalize` each run whole under the decryptor's lock (`serial`):
/// that lock, which the compiler cannot see guarding the engine and the held plaintext,
/// is why it is `@unchecked`.
public final class Decryptor: @unchecked Sendable {
    private let engine: DecryptorEngine
    private var held: [UInt8] = []
    private let serial = LockedState(())

    /// A decryptor for password-based messages (10,000 PBKDF2 rounds, the format's).
    /// Versions 0 and 1 throw `legacyVersion` (as soon as the header is read) unless
    /// `legacyFormats` is `.allowed`.
    public init(password: SecretBytes, legacyFormats: LegacyFormats = .refused) {
        engine = DecryptorEngine(password: password, legacyFormats: legacyFormats)
    }

    /// A decryptor for password-based messages made with `iterations` PBKDF2 rounds.
    /// Versions 0 and 1 throw `legacyVersion` (as soon as the header is read) unless
    /// `legacyFormats` is `.allowed`.
    ///
    /// - Throws: `RNCryptorError.iterationsOutOfRange` unless `iterations` is in
    ///   1...`KeyDerivation.maximumIterations`.
    public init(password: SecretBytes, iterations: Int, legacyFormats: LegacyFormats = .refused) throws(RNCryptorError) {
        try RNCryptorError.check(iterations: iterations)
        engine = DecryptorEngine(password: password, iterations: iterations, legacyFormats: legacyFormats)
    }

    /// A decryptor for key-based messages. Version 1 throws `legacyVersion` unless
    /// `legacyFormats` is `.allowed`.
    public init(keys: MessageKeys, legacyFormats: LegacyFormats = .refused) {
        engine = DecryptorEngine(keys: keys, legacyFormats: legacyFormats)
    }

    deinit { Crypto.cleanse(&held) }

    /// Whether the header is read (and the keys derived): no later `update` derives a key.
    package var isPastHeader: Bool { serial.withLock { _ in engine.isPastHeader } }

    /// Feeds the next bytes of the message. Releases nothing: a malformed header or
    /// the wrong kind of credential throws here, everything else at `finalize()`.
    /// After `finalize()`, throws `alreadyFinalized`.
    public func update(_ data: some RandomAccessCollection<UInt8>) throws(RNCryptorError) {
        try serial.withLock { (_: inout Void) throws(RNCryptorError) in
            try hold { () throws(RNCryptorError) in try engine.update(ContiguousBytes(data)) }
        }
    }

    /// Verifies the HMAC (in constant time), then the padding, and returns the whole
    /// plaintext; throws (and wipes what it held) when the message does not verify.
    /// A second call throws `alreadyFinalized`.
    public func finalize() throws(RNCryptorError) -> [UInt8] {
        try serial.withLock { (_: inout Void) throws(RNCryptorError) -> [UInt8] in try finalizeNow() }
    }

    private func finalizeNow() throws(RNCryptorError) -> [UInt8] {
        try hold { () throws(RNCryptorError) in try engine.finalize() }
        let plaintext = held
        held.removeAll()
        return plaintext
    }

    /// Adds what the engine deciphers to the held plaintext (wiping the engine's copy);
    /// when the engine throws, wipes everything held.
    private func hold(_ deciphered: () throws(RNCryptorError) -> [UInt8]) throws(RNCryptorError) {
        do {
            var more = try deciphered()
            held.append(contentsOf: more)
            Crypto.cleanse(&more)
        } catch {
            Crypto.cleanse(&held)
            throw error
        }
    }
}

/// The incremental engine under `Decryptor`: hands out deciphered bytes as they come,
/// **unverified until `finalize()` succeeds**. Package access only: nothing outside
/// the package may get plaintext before its HMAC verified.
///
/// Memory stays bounded whatever the message size: at most the header and the
/// last 32 bytes are held back (the HMAC can only be recognised at the end).
package final class DecryptorEngine {
    private enum Credential { case password(SecretBytes), keys(MessageKeys) }
    private enum State { case header([UInt8]), body(BodyEngine), finished }

    private let credential: Credential
    private let iterations: Int
    private let legacyFormats: LegacyFormats
    private var state: State = .header([])

    /// A decryptor for password-based messages, with `iterations` PBKDF2 rounds
    /// (versions 0 and 1 too unless `legacyFormats` is `.refused`: the engine is the package's own).
    package init(password: SecretBytes, iterations: Int = KeyDerivation.iterations, legacyFormats: LegacyFormats = .allowed) {
        precondition((1...KeyDerivation.maximumIterations).contains(iterations), "PBKDF2 iteration count out of range")
        credential = .password(password)
        self.iterations = iterations
        self.legacyFormats = legacyFormats
    }
    /// A decryptor for key-based messages.
    package init(keys: MessageKeys, legacyFormats: LegacyFormats = .allowed) {
        credential = .keys(keys)
        iterations = KeyDerivation.iterations
        self.legacyFormats = legacyFormats
    }

    /// Whether the header is read (or the engine finished): `update` derives no key any more.
    package var isPastHeader: Bool {
        if case .header = state { return false }
        return true
    }

    /// Feeds the next bytes of the message; returns plaintext that is
    /// **unverified until `finalize()` succeeds**.
    package func update(_ data: some ContiguousByteStorage) throws(RNCryptorError) -> [UInt8] {
        var result: Result<[UInt8], RNCryptorError> = .success([])
        data.withUnsafeBytes { raw in result = Result { () throws(RNCryptorError) in try update(raw) } }
        return try result.get()
    }

    /// Feeds the next bytes of the message; returns plaintext that is
    /// **unverified until `finalize()` succeeds**.
    package func update(_ data: UnsafeRawBufferPointer) throws(RNCryptorError) -> [UInt8] {
        switch state {
        case .finished:
            throw .alreadyFinalized
        case .body(let body):
            return body.update(data)
        case .header(var pending):
            pending.append(contentsOf: data)
            let length: Int
            do { length = try MessageHeader.headerLength(of: pending, moreMayFollow: true) } catch .tooShort { state = .header(pending); return [] }
            guard pending.count >= length else { state = .header(pending); return [] }
            let header = try MessageHeader(parsing: pending)
            try legacyFormats.check(header)
            let body = try BodyEngine(header: header, keys: try keys(for: header))
            state = .body(body)
            return pending.count > length ? pending[length...].withUnsafeBytes { body.update($0) } : []
        }
    }

    /// Verifies the HMAC (in constant time), then the padding, and returns the
    /// last plaintext bytes. Only after this returns is the plaintext authentic.
    /// A second call (or `update` after it) throws `alreadyFinalized`.
    package func finalize() throws(RNCryptorError) -> [UInt8] {
        defer { state = .finished }
        switch state {
        case .finished: throw .alreadyFinalized
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
            return try MessageKeys(encryptionKey: derived[0], hmacKey: derived[1])
        }
    }
}

/// Decrypts the part of a message after its header, given the keys.
///
/// Holds back the trailing 32 bytes (the would-be HMAC); everything before them
/// is authenticated and deciphered as it arrives. The output is unverified
/// until `finalize()` succeeds.
package final class BodyEngine {
    private let header: MessageHeader
    private let authenticator: BodyAuthenticator
    private let decipher: BodyDecipher
    private var tail: [UInt8] = []
    private var bodyCount = 0

    /// Starts decrypting the body of a message with `header` under `keys`.
    package init(header: MessageHeader, keys: MessageKeys) throws(RNCryptorError) {
        self.header = header
        authenticator = BodyAuthenticator(header: header, hmacKey: keys.hmacKey)
        decipher = BodyDecipher(header: header, encryptionKey: keys.encryptionKey)
        tail.reserveCapacity(2 * Crypto.tagSize)
    }

    /// Feeds body bytes; returns **unverified** plaintext.
    package func update(_ data: UnsafeRawBufferPointer) -> [UInt8] {
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
    package func update(_ data: some ContiguousByteStorage) -> [UInt8] {
        data.withUnsafeBytes { update($0) }
    }

    private func process(_ ciphertext: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        guard ciphertext.count > 0 else { return }
        authenticator.update(ciphertext)
        decipher.update(ciphertext, into: &out)
    }

    /// Checks the length, the HMAC (constant time) and then the padding.
    package func finalize() throws(RNCryptorError) -> [UInt8] {
        try header.validate(messageLength: header.length + bodyCount)
        guard authenticator.matches(tag: tail) else { throw .hmacMismatch }
        var out: [UInt8] = []
        guard decipher.finalize(into: &out) else { throw .badPadding }
        return out
    }
}
