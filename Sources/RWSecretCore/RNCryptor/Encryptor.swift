/// Encrypts one RNCryptor v3 message fed in pieces, in bounded memory.
///
/// The first `update(_:)` output starts with the header; `finalize()` returns
/// the last block and the HMAC. Salts and IV come from OpenSSL's `RAND_bytes`.
///
/// `Sendable`, so that it can be handed to another task; a message is one sequence of
/// pieces, so the tasks must still feed it in order. `update` and `finalize` each run
/// whole under the encryptor's lock (`serial`): that lock, which the compiler cannot
/// see guarding the OpenSSL contexts and `headerWritten`, is why it is `@unchecked`.
public final class Encryptor: @unchecked Sendable {
    private let header: MessageHeader
    private let authenticator: Authenticator
    private let cipher: Cipher
    private var headerWritten = false
    private let serial = LockedState(())

    /// A password-based (options 1) encryptor with fresh random salts and IV.
    public convenience init(password: SecretBytes) {
        try! self.init(password: password, iterations: KeyDerivation.iterations)  // 10,000 is in range
    }

    /// A password-based (options 1) encryptor with fresh random salts and IV, deriving
    /// its keys with `iterations` PBKDF2 rounds.
    ///
    /// `iterations` other than 10,000 makes a message that only a reader told the
    /// same count can open (the format does not record it; few implementations allow it).
    ///
    /// - Throws: `RNCryptorError.iterationsOutOfRange` unless `iterations` is in
    ///   1...`KeyDerivation.maximumIterations`.
    public convenience init(password: SecretBytes, iterations: Int) throws(RNCryptorError) {
        try self.init(password: password,
                      encryptionSalt: Crypto.randomBytes(count: MessageHeader.saltSize),
                      hmacSalt: Crypto.randomBytes(count: MessageHeader.saltSize),
                      iv: Crypto.randomBytes(count: Crypto.blockSize),
                      iterations: iterations)
    }

    /// A password-based encryptor with the given salts and IV.
    ///
    /// - Warning: For reproducing test vectors only. Reusing salts or IV leaks information.
    /// - Throws: `RNCryptorError.invalidSaltSize` unless each salt is 8 bytes,
    ///   `.invalidIVSize` unless `iv` is 16 bytes, `.iterationsOutOfRange` unless
    ///   `iterations` is in 1...`KeyDerivation.maximumIterations`.
    package convenience init(password: SecretBytes, encryptionSalt: [UInt8], hmacSalt: [UInt8], iv: [UInt8],
                iterations: Int = 10_000) throws(RNCryptorError) {
        for salt in [encryptionSalt, hmacSalt] where salt.count != MessageHeader.saltSize { throw .invalidSaltSize(salt.count) }
        try RNCryptorError.check(iv: iv)
        try RNCryptorError.check(iterations: iterations)
        let derived = KeyDerivation.keys([(password, encryptionSalt), (password, hmacSalt)], iterations: iterations)
        self.init(salts: (encryptionSalt, hmacSalt), iv: iv, derived: derived)
    }

    /// A password-based encryptor whose keys are derived already (`derived`: the encryption
    /// key, then the HMAC key, from `salts`); the salts and IV are checked.
    package init(salts: (encryption: [UInt8], hmac: [UInt8]), iv: [UInt8], derived: [SecretBytes]) {
        self.header = MessageHeader(salts: salts, iv: iv)
        authenticator = Authenticator(key: derived[1])
        cipher = Cipher(.encrypt, key: derived[0], iv: iv)
    }

    /// A key-based (options 0) encryptor with a fresh random IV.
    public convenience init(keys: MessageKeys) {
        try! self.init(keys: keys, iv: Crypto.randomBytes(count: Crypto.blockSize))  // a 16-byte IV
    }

    /// A key-based encryptor with the given IV.
    ///
    /// - Warning: For reproducing test vectors only.
    /// - Throws: `RNCryptorError.invalidIVSize` unless `iv` is 16 bytes.
    public init(keys: MessageKeys, iv: [UInt8]) throws(RNCryptorError) {
        try RNCryptorError.check(iv: iv)
        header = MessageHeader(salts: nil, iv: iv)
        authenticator = Authenticator(key: keys.hmacKey)
        cipher = Cipher(.encrypt, key: keys.encryptionKey, iv: iv)
    }

    /// Encrypts the next plaintext bytes; returns the next message bytes.
    public func update(_ plaintext: some RandomAccessCollection<UInt8>) -> [UInt8] {
        serial.withLock { _ in update(storage: ContiguousBytes(plaintext)) }
    }

    /// Encrypts the next plaintext bytes, held as a secret.
    package func update(_ plaintext: SecretBytes) -> [UInt8] { serial.withLock { _ in update(storage: plaintext) } }

    private func update(storage plaintext: some ContiguousByteStorage) -> [UInt8] {
        var out = takeHeader()
        let start = out.count
        plaintext.withUnsafeBytes { cipher.update($0, into: &out) }
        out[start...].withUnsafeBytes { authenticator.update($0) }
        return out
    }

    /// Ends the message: the last ciphertext block and the HMAC.
    public func finalize() -> [UInt8] { serial.withLock { _ in finalizeNow() } }

    private func finalizeNow() -> [UInt8] {
        var out = takeHeader()
        let start = out.count
        _ = cipher.finalize(into: &out)
        out[start...].withUnsafeBytes { authenticator.update($0) }
        return out + authenticator.finalize()
    }

    private func takeHeader() -> [UInt8] {
        guard !headerWritten else { return [] }
        headerWritten = true
        let bytes = header.bytes
        authenticator.update(bytes)
        return bytes
    }
}

extension Encryptor {
    /// The PBKDF2 iterations of a password-based message made without `iterations:`:
    /// RNCryptor v3's 10,000, the only count other RNCryptor readers assume.
    public static let defaultIterations = KeyDerivation.iterations

    /// The most PBKDF2 iterations `init(password:iterations:)` accepts (`Int32.max`).
    public static let maximumIterations = KeyDerivation.maximumIterations
}
