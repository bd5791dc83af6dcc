/// Why a message could not be decrypted, or why a parameter of the format was refused:
/// a ``code`` to act on and a ``description`` for people (the version, size or count
/// concerned included).
///
/// Not frozen: a struct, as swift-system's `Errno`, so a later version adds codes without
/// breaking a `switch` (which needs a `default`).
public struct RNCryptorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, in kind. Not frozen: later versions may add codes.
    public struct Code: Hashable, Sendable {
        private let value: Int
        private init(_ value: Int) { self.value = value }

        /// The message is cut short, or its ciphertext is not whole 16-byte blocks.
        public static let malformed = Code(1)
        /// Not a format this library reads: an unknown version or options byte, OpenSSL
        /// `enc` (`Salted__`), or the unfinished RNCryptor v4 draft.
        public static let unknownFormat = Code(2)
        /// A version 0 or 1 message, whose HMAC does not cover its header, and legacy
        /// formats were not allowed (``LegacyFormats``).
        public static let legacyVersion = Code(3)
        /// A key-based message was given a password, or a password-based one keys.
        public static let wrongCredentialType = Code(4)
        /// The message does not authenticate: a wrong password or key, or a corrupted
        /// message (the HMAC does not match, or the padding under a matching HMAC is bad).
        public static let authenticationFailure = Code(5)
        /// A key that is not 32 bytes, an IV that is not 16, an iteration count out of range.
        public static let invalidParameter = Code(6)
        /// `update(_:)` or `finalize()` on a decryptor already finalized.
        public static let alreadyFinalized = Code(7)
    }

    /// What went wrong, in full (package access: the tool and the compatibility module map it).
    package let reason: Reason

    package init(_ reason: Reason) { self.reason = reason }

    /// The message's version byte when it is the problem: a version not read (`unknownVersion`)
    /// or a legacy one not allowed (`legacyVersion`); nil for the others.
    public var version: UInt8? {
        switch reason {
        case .unknownVersion(let value), .legacyVersion(let value): value
        default: nil
        }
    }

    /// What went wrong, in kind.
    public var code: Code {
        switch reason {
        case .tooShort, .badLength: .malformed
        case .unknownVersion, .unknownOptions, .openSSLEnc, .rncryptorV4Draft: .unknownFormat
        case .legacyVersion: .legacyVersion
        case .keyBasedMessage, .passwordBasedMessage: .wrongCredentialType
        case .hmacMismatch, .badPadding: .authenticationFailure
        case .invalidKeySize, .invalidIVSize, .invalidSaltSize, .iterationsOutOfRange: .invalidParameter
        case .alreadyFinalized: .alreadyFinalized
        }
    }
}

extension RNCryptorError {
/// What went wrong, in full.
package enum Reason: Equatable, Sendable {
    /// Fewer bytes than the header, one 16-byte block and the 32-byte HMAC.
    case tooShort
    /// The ciphertext is not a whole number of 16-byte blocks.
    case badLength
    /// The first byte is not a known format version (or this is not an RNCryptor message at all).
    case unknownVersion(UInt8)
    /// The options byte is not one the version defines.
    case unknownOptions(UInt8)
    /// A key-based message was given a password: it needs the encryption and HMAC keys.
    case keyBasedMessage
    /// A password-based message was given keys: it needs a password.
    case passwordBasedMessage
    /// The HMAC does not match: a wrong password or key, or a corrupted message.
    case hmacMismatch
    /// The HMAC matched but the PKCS#7 padding is invalid.
    case badPadding
    /// Not RNCryptor: the input starts with `Salted__`, as OpenSSL `enc` writes.
    case openSSLEnc
    /// Not an RNCryptor format this library reads: the input starts with `RNC` and
    /// version 4, the unfinished RNCryptor v4 draft.
    case rncryptorV4Draft
    /// A version 0 or 1 message, whose HMAC does not cover its header (salts and IV),
    /// and legacy formats were not allowed (`LegacyFormats`).
    case legacyVersion(UInt8)
    /// A key that is not 32 bytes (AES-256 and HMAC-SHA256 keys); the size given.
    case invalidKeySize(Int)
    /// An IV that is not 16 bytes; the size given.
    case invalidIVSize(Int)
    /// A salt that is not 8 bytes; the size given.
    case invalidSaltSize(Int)
    /// A PBKDF2 iteration count below 1 or above `KeyDerivation.maximumIterations`; the count given.
    case iterationsOutOfRange(Int)
    /// `update(_:)` or `finalize()` on a decryptor whose `finalize()` has already been called.
    case alreadyFinalized
}
}

/// The cases as errors, so that the package throws and matches `.hmacMismatch` as before.
extension RNCryptorError {
    package static var tooShort: RNCryptorError { RNCryptorError(.tooShort) }
    package static var badLength: RNCryptorError { RNCryptorError(.badLength) }
    package static func unknownVersion(_ value: UInt8) -> RNCryptorError { RNCryptorError(.unknownVersion(value)) }
    package static func unknownOptions(_ value: UInt8) -> RNCryptorError { RNCryptorError(.unknownOptions(value)) }
    package static var keyBasedMessage: RNCryptorError { RNCryptorError(.keyBasedMessage) }
    package static var passwordBasedMessage: RNCryptorError { RNCryptorError(.passwordBasedMessage) }
    package static var hmacMismatch: RNCryptorError { RNCryptorError(.hmacMismatch) }
    package static var badPadding: RNCryptorError { RNCryptorError(.badPadding) }
    package static var openSSLEnc: RNCryptorError { RNCryptorError(.openSSLEnc) }
    package static var rncryptorV4Draft: RNCryptorError { RNCryptorError(.rncryptorV4Draft) }
    package static func legacyVersion(_ value: UInt8) -> RNCryptorError { RNCryptorError(.legacyVersion(value)) }
    package static func invalidKeySize(_ value: Int) -> RNCryptorError { RNCryptorError(.invalidKeySize(value)) }
    package static func invalidIVSize(_ value: Int) -> RNCryptorError { RNCryptorError(.invalidIVSize(value)) }
    package static func invalidSaltSize(_ value: Int) -> RNCryptorError { RNCryptorError(.invalidSaltSize(value)) }
    package static func iterationsOutOfRange(_ value: Int) -> RNCryptorError { RNCryptorError(.iterationsOutOfRange(value)) }
    package static var alreadyFinalized: RNCryptorError { RNCryptorError(.alreadyFinalized) }
}

extension RNCryptorError {
    /// A short English description, without secrets.
    public var description: String {
        switch reason {
        case .tooShort: "too short"
        case .badLength: "bad length"
        case .unknownVersion(let v): "unknown version \(v)"
        case .unknownOptions(let o): "unknown options \(o)"
        case .keyBasedMessage: "key-based message needs a key"
        case .passwordBasedMessage: "password-based message needs a password"
        case .hmacMismatch: "HMAC mismatch (wrong password or key, or corrupted message)"
        case .badPadding: "bad padding"
        case .openSSLEnc: "OpenSSL enc format (Salted__), not RNCryptor"
        case .rncryptorV4Draft: "RNCryptor v4 draft format, not supported"
        case .legacyVersion(let v): "version \(v) authenticates the ciphertext only, not its header (legacy formats not allowed)"
        case .invalidKeySize(let n): "key of \(n) bytes (needs 32)"
        case .invalidIVSize(let n): "IV of \(n) bytes (needs 16)"
        case .invalidSaltSize(let n): "salt of \(n) bytes (needs 8)"
        case .iterationsOutOfRange(let n): "PBKDF2 iteration count \(n) out of range"
        case .alreadyFinalized: "decryptor already finalized"
        }
    }
}

extension RNCryptorError {
    /// Throws `iterationsOutOfRange` unless `iterations` is in 1...`KeyDerivation.maximumIterations`.
    package static func check(iterations: Int) throws(RNCryptorError) {
        guard (1...KeyDerivation.maximumIterations).contains(iterations) else { throw .iterationsOutOfRange(iterations) }
    }

    /// Throws `invalidIVSize` unless `iv` is one AES block (16 bytes).
    package static func check(iv: [UInt8]) throws(RNCryptorError) {
        guard iv.count == Crypto.blockSize else { throw .invalidIVSize(iv.count) }
    }

    /// The case's name ("hmacMismatch"), without its value: for the tests' and fuzzers' agreement checks.
    package var caseName: String {
        switch reason {
        case .tooShort: "tooShort"
        case .badLength: "badLength"
        case .unknownVersion: "unknownVersion"
        case .unknownOptions: "unknownOptions"
        case .keyBasedMessage: "keyBasedMessage"
        case .passwordBasedMessage: "passwordBasedMessage"
        case .hmacMismatch: "hmacMismatch"
        case .badPadding: "badPadding"
        case .openSSLEnc: "openSSLEnc"
        case .rncryptorV4Draft: "rncryptorV4Draft"
        case .legacyVersion: "legacyVersion"
        case .invalidKeySize: "invalidKeySize"
        case .invalidIVSize: "invalidIVSize"
        case .invalidSaltSize: "invalidSaltSize"
        case .iterationsOutOfRange: "iterationsOutOfRange"
        case .alreadyFinalized: "alreadyFinalized"
        }
    }
}

/// A decryption's outcome as the tests and fuzzers compare them: the plaintext, or the typed error.
package typealias DecryptionOutcome = Result<[UInt8], RNCryptorError>

extension Result where Success == [UInt8], Failure == RNCryptorError {
    /// "decrypted", or the error's case name ("hmacMismatch").
    package var caseName: String {
        switch self {
        case .success: "decrypted"
        case .failure(let error): error.caseName
        }
    }

    /// Whether this one-shot outcome and an incremental decryptor's agree: the same
    /// plaintext, or the same error — except that the incremental decryptor checks the
    /// credential kind as soon as the header is complete, before it can know the length,
    /// so it may say key-/password-based where one-shot says too short or bad length.
    package func agrees(withIncremental incremental: Self) -> Bool {
        switch (self, incremental) {
        case (.success(let a), .success(let b)): return a == b
        case (.failure(let a), .failure(let b)):
            if a == b { return true }
            return [.tooShort, .badLength].contains(a) && [.keyBasedMessage, .passwordBasedMessage].contains(b)
        default: return false
        }
    }

    /// Short, for failure messages: "decrypted 12 bytes", or the error's description.
    package var summary: String {
        switch self {
        case .success(let bytes): "decrypted \(bytes.count) bytes"
        case .failure(let error): "\(error)"
        }
    }
}
