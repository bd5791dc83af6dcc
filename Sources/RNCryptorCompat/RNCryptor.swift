// RNCryptor Swift's public API (RNCryptor 5), over RWSecretCore (RNCryptor alone: libcrypto is the one library it links), for Linux.
//
// A program written against RNCryptor Swift builds against this module by
// changing `import RNCryptor` to `import RNCryptorCompat`. Messages are the
// same RNCryptor v3 format, byte for byte.
//
// One deliberate difference: decryptors never hand out plaintext before the
// HMAC has been verified. `update(withData:)` of a decryptor returns empty
// data; `finalData()` returns the whole plaintext once the HMAC matches.
// See `RNCryptor.Decryptor` for why.

import Foundation
// Re-exported: `RNCryptor` is RWSecretCore's namespace, which this module extends with
// RNCryptor Swift's API, so a file that imports both products sees one `RNCryptor`.
@_spi(Testing) @_exported public import RWSecretCore

/// A mutable, incremental, password-based encryptor or decryptor.
///
///     let cryptor = RNCryptor.Encryptor(password: "mypassword") // or RNCryptor.Decryptor
///     var result = Data()
///     for data in datas { result.append(try cryptor.update(withData: data)) }
///     result.append(try cryptor.finalData())
///
/// After `finalData()`, the cryptor is no longer valid.
///
/// - Important: Unlike RNCryptor Swift, a decryptor of this module returns
///   empty data from `update(withData:)` and the whole plaintext from
///   `finalData()`, after the HMAC has been verified.
public protocol RNCryptorType {
    /// Creates a cryptor for a non-empty password, used as UTF-8.
    init(password: String)

    /// Processes the next bytes and returns output, possibly empty.
    /// (Decryptors of this module always return empty data here.)
    func update(withData data: Data) throws -> Data

    /// Returns the trailing output and invalidates the cryptor.
    /// (Decryptors of this module return the whole, verified plaintext here.)
    func finalData() throws -> Data
}

extension RNCryptorType {
    fileprivate func oneShot(_ data: Data) throws -> Data {
        var result = try update(withData: data)
        result.append(try finalData())
        return result
    }
}

/// RNCryptor encryption and decryption, as in RNCryptor Swift.
extension RNCryptor {

    /// The errors thrown by decryptors.
    public enum Error: Int, Swift.Error {
        /// The ciphertext is corrupt or the password (or key) is wrong; the v3
        /// format cannot tell the two apart. Also thrown when the HMAC matches
        /// but the padding is invalid (a message no RNCryptor writes).
        case hmacMismatch = 1
        /// The data is not an RNCryptor v3 message (unknown version or options byte).
        case unknownHeader = 2
        /// `finalData()` was called before a whole message was passed to `update(withData:)`,
        /// or the ciphertext is not a whole number of blocks.
        case messageTooShort
        /// Memory allocation failure. Never thrown here (kept for source compatibility).
        case memoryFailure
        /// A password-based decryptor was given a key-based message, or the reverse.
        case invalidCredentialType
    }

    /// Encrypts `data` with `password` (a v3 password-based message).
    public static func encrypt(data: Data, withPassword password: String) -> Data {
        Encryptor(password: password).encrypt(data: data)
    }

    /// Decrypts a v3 password-based message; returns nothing unless the HMAC verifies.
    /// - Throws: `RNCryptor.Error`.
    public static func decrypt(data: Data, withPassword password: String) throws -> Data {
        try Decryptor(password: password).decrypt(data: data)
    }

    /// `length` random bytes from OpenSSL's `RAND_bytes` (crashes if it fails, as RNCryptor Swift does).
    public static func randomData(ofLength length: Int) -> Data {
        Data(Crypto.randomBytes(count: length))
    }

    /// An encryptor for the latest format (v3), with a password.
    public final class Encryptor: RNCryptorType {
        private let encryptor: EncryptorV3

        /// Creates an encryptor for a non-empty password, used as UTF-8.
        public init(password: String) {
            precondition(password != "", "RNCryptor.Encryptor needs a non-empty password")
            encryptor = EncryptorV3(password: password)
        }

        /// Encrypts the next bytes; returns the next message bytes (the first call's start with the header).
        public func update(withData data: Data) -> Data { encryptor.update(withData: data) }

        /// Returns the last ciphertext block and the HMAC, and invalidates the encryptor.
        public func finalData() -> Data { encryptor.finalData() }

        /// Encrypts `data` as one whole message and invalidates the encryptor.
        public func encrypt(data: Data) -> Data { encryptor.encrypt(data: data) }
    }

    /// A password-based decryptor (the v3 format, the only one RNCryptor Swift reads).
    ///
    /// - Important: **Differs from RNCryptor Swift.** RNCryptor Swift's
    ///   `update(withData:)` returns plaintext before the HMAC, which covers the
    ///   whole message, has been checked; a caller that uses it acts on data an
    ///   attacker may have chosen (and a padding or format error can leak
    ///   information). Here `update(withData:)` always returns empty data and
    ///   keeps the plaintext in memory; `finalData()` returns the whole
    ///   plaintext only after the HMAC has verified (in constant time), and
    ///   throws otherwise. Code that concatenates the outputs of `update` and
    ///   `finalData` gets the same bytes; memory holds the whole message. For
    ///   bounded memory on large inputs, use RWSecretKit's `VerifiedStream`.
    public final class Decryptor: RNCryptorType {
        private let held: HeldDecryption

        /// Creates a decryptor for a non-empty password, used as UTF-8.
        public init(password: String) {
            assert(password != "", "RNCryptor.Decryptor needs a non-empty password")
            held = HeldDecryption(RWSecretCore.Decryptor(password: SecretBytes(utf8: password)), emptyError: .unknownHeader)
        }

        /// Decrypts a whole message and invalidates the decryptor; returns nothing unless the HMAC verifies.
        /// - Throws: `RNCryptor.Error`.
        public func decrypt(data: Data) throws -> Data { try oneShot(data) }

        /// Takes the next message bytes and returns **empty data** (unlike RNCryptor Swift:
        /// the plaintext is held until `finalData()` has verified the HMAC).
        /// - Throws: `RNCryptor.Error` as soon as the header is known to be wrong.
        public func update(withData data: Data) throws -> Data { try held.update(data) }

        /// Verifies the HMAC, then returns the **whole** plaintext and invalidates the decryptor.
        /// - Throws: `RNCryptor.Error`; no plaintext is returned on failure.
        public func finalData() throws -> Data { try held.finalData() }
    }
}

extension RNCryptor {
    /// Settings of the v3 format.
    public final class FormatV3 {
        /// Size of the AES-256 and HMAC-SHA256 keys (32 bytes).
        public static let keySize = Crypto.keySize
        /// Size of each PBKDF2 salt (8 bytes).
        public static let saltSize = 8

        static let ivSize = Crypto.blockSize
        static let hmacSize = Crypto.tagSize

        /// The key PBKDF2-HMAC-SHA1 (10,000 rounds) derives from a password (UTF-8) and a salt,
        /// `keySize` bytes long.
        public static func makeKey(forPassword password: String, withSalt salt: Data) -> Data {
            let key = KeyDerivation.key(password: SecretBytes(utf8: password), salt: [UInt8](salt))
            return key.withUnsafeBytes { Data($0) }
        }
    }

    /// A v3 encryptor: with a password, or with keys (key-based messages).
    public final class EncryptorV3: RNCryptorType {
        private let encryptor: RWSecretCore.Encryptor

        /// Creates a password-based encryptor with fresh random salts and IV.
        public convenience init(password: String) {
            self.init(password: password,
                      encryptionSalt: RNCryptor.randomData(ofLength: FormatV3.saltSize),
                      hmacSalt: RNCryptor.randomData(ofLength: FormatV3.saltSize),
                      iv: RNCryptor.randomData(ofLength: FormatV3.ivSize))
        }

        /// Creates a key-based encryptor with a fresh random IV. Both keys must be
        /// `FormatV3.keySize` (32) random bytes; never bytes of a string.
        public convenience init(encryptionKey: Data, hmacKey: Data) {
            self.init(encryptionKey: encryptionKey, hmacKey: hmacKey, iv: RNCryptor.randomData(ofLength: FormatV3.ivSize))
        }

        /// Creates a key-based encryptor with the given IV.
        /// - Warning: For reproducing test vectors only: a reused IV leaks information.
        ///   (Internal in RNCryptor Swift, where tests reach it with `@testable`.)
        public init(encryptionKey: Data, hmacKey: Data, iv: Data) {
            precondition(encryptionKey.count == FormatV3.keySize, "encryption key must be 32 bytes")
            precondition(hmacKey.count == FormatV3.keySize, "HMAC key must be 32 bytes")
            precondition(iv.count == FormatV3.ivSize, "IV must be 16 bytes")
            // The preconditions above are RNCryptor Swift's own: the sizes cannot throw here.
            encryptor = try! RWSecretCore.Encryptor(keys: MessageKeys(encryptionKey: SecretBytes(encryptionKey), hmacKey: SecretBytes(hmacKey)),
                                              iv: [UInt8](iv))
        }

        /// Creates a password-based encryptor with the given salts and IV.
        /// - Warning: For reproducing test vectors only: reused salts or IV leak information.
        ///   (Internal in RNCryptor Swift, where tests reach it with `@testable`.)
        public init(password: String, encryptionSalt: Data, hmacSalt: Data, iv: Data) {
            precondition(encryptionSalt.count == FormatV3.saltSize && hmacSalt.count == FormatV3.saltSize, "salts must be 8 bytes")
            precondition(iv.count == FormatV3.ivSize, "IV must be 16 bytes")
            encryptor = try! RWSecretCore.Encryptor(password: SecretBytes(utf8: password), encryptionSalt: [UInt8](encryptionSalt),
                                              hmacSalt: [UInt8](hmacSalt), iv: [UInt8](iv))
        }

        /// Encrypts `data` as one whole message and invalidates the encryptor.
        public func encrypt(data: Data) -> Data {
            var result = update(withData: data)
            result.append(finalData())
            return result
        }

        /// Encrypts the next bytes; returns the next message bytes (the first call's start with the header).
        public func update(withData data: Data) -> Data {
            Data(encryptor.update(data))
        }

        /// Returns the last ciphertext block and the HMAC, and invalidates the encryptor.
        public func finalData() -> Data { Data(encryptor.finalize()) }
    }

    /// A v3 decryptor: with a password, or with keys (needed for key-based messages).
    ///
    /// - Important: **Differs from RNCryptor Swift**, as `RNCryptor.Decryptor` does:
    ///   `update(withData:)` returns empty data, and `finalData()` returns the
    ///   whole plaintext only after the HMAC has verified.
    public final class DecryptorV3: RNCryptorType {
        private let held: HeldDecryption

        /// Creates a decryptor for password-based messages (non-empty password, used as UTF-8).
        public init(password: String) {
            assert(password != "", "RNCryptor.DecryptorV3 needs a non-empty password")
            held = HeldDecryption(RWSecretCore.Decryptor(password: SecretBytes(utf8: password)), emptyError: .messageTooShort)
        }

        /// Creates a decryptor for key-based messages; both keys must be `FormatV3.keySize` (32) bytes.
        public init(encryptionKey: Data, hmacKey: Data) {
            precondition(encryptionKey.count == FormatV3.keySize, "encryption key must be 32 bytes")
            precondition(hmacKey.count == FormatV3.hmacSize, "HMAC key must be 32 bytes")
            let keys = try! MessageKeys(encryptionKey: SecretBytes(encryptionKey), hmacKey: SecretBytes(hmacKey))  // sizes checked above
            held = HeldDecryption(RWSecretCore.Decryptor(keys: keys), emptyError: .messageTooShort)
        }

        /// Decrypts a whole message and invalidates the decryptor; returns nothing unless the HMAC verifies.
        /// - Throws: `RNCryptor.Error`.
        public func decrypt(data: Data) throws -> Data { try oneShot(data) }

        /// Takes the next message bytes and returns **empty data** (unlike RNCryptor Swift:
        /// the plaintext is held until `finalData()` has verified the HMAC).
        /// - Throws: `RNCryptor.Error` as soon as the header is known to be wrong.
        public func update(withData data: Data) throws -> Data { try held.update(data) }

        /// Verifies the HMAC, then returns the **whole** plaintext and invalidates the decryptor.
        /// - Throws: `RNCryptor.Error`; no plaintext is returned on failure.
        public func finalData() throws -> Data { try held.finalData() }
    }
}

/// RWSecretKit's decryptor (which releases the plaintext only once the HMAC verifies), in RNCryptor Swift's shape.
private final class HeldDecryption {
    private let decryptor: RWSecretCore.Decryptor
    /// Thrown by `finalData()` when no byte was given (RNCryptor Swift: unknownHeader
    /// for `Decryptor`, messageTooShort for `DecryptorV3`).
    private let emptyError: RNCryptor.Error
    private var sawFirstByte = false

    init(_ decryptor: RWSecretCore.Decryptor, emptyError: RNCryptor.Error) {
        self.decryptor = decryptor
        self.emptyError = emptyError
    }

    func update(_ data: Data) throws -> Data {
        guard !data.isEmpty else { return Data() }
        if !sawFirstByte {
            // RNCryptor Swift reads version 3 only; RWSecretKit would also read 0–2.
            guard data.first == 3 else { throw RNCryptor.Error.unknownHeader }
            sawFirstByte = true
        }
        let result = Result { () throws(RNCryptorError) in try decryptor.update(data) }
        if case .failure(let error) = result { throw Self.map(error) }
        return Data()
    }

    func finalData() throws -> Data {
        guard sawFirstByte else { throw emptyError }
        var plaintext: [UInt8]
        do { plaintext = try decryptor.finalize() } catch { throw Self.map(error) }
        defer { Crypto.cleanse(&plaintext) }
        return Data(plaintext)
    }

    static func map(_ error: RNCryptorError) -> RNCryptor.Error {
        switch error.reason {
        case .tooShort, .badLength: .messageTooShort
        case .unknownVersion, .unknownOptions, .openSSLEnc, .rncryptorV4Draft, .legacyVersion: .unknownHeader
        case .keyBasedMessage, .passwordBasedMessage: .invalidCredentialType
        case .hmacMismatch, .badPadding: .hmacMismatch
        // Parameters the compat layer checks itself (RNCryptor Swift's preconditions), and
        // `finalData()` after the first: RNCryptor Swift has no case of its own for them.
        case .invalidKeySize, .invalidIVSize, .invalidSaltSize, .iterationsOutOfRange, .alreadyFinalized: .invalidCredentialType
        }
    }
}
