/// The parsed header of an RNCryptor message (versions 0 to 3).
///
/// Layout: version (1 byte), options (1 byte), then for password-based
/// messages an 8-byte encryption salt and an 8-byte HMAC salt, then the 16-byte IV.
/// The ciphertext follows, then a 32-byte HMAC.
///
/// Versions 1–3: AES-256-CBC with PKCS#7 padding, HMAC-SHA256; options 1 is
/// password-based, options 0 key-based. Version 0 (the first iOS format) is
/// always password-based with options byte 0: AES-256 in CommonCrypto's
/// little-endian counter mode (no padding, so any ciphertext length), and an
/// HMAC-SHA1 of the ciphertext alone, padded with 12 zero bytes to 32.
package struct MessageHeader: Sendable, Equatable {
    /// The format version, 0 to 3.
    package let version: UInt8
    /// The salts of a password-based message; `nil` for a key-based one.
    package let salts: (encryption: [UInt8], hmac: [UInt8])?
    /// The initialisation vector (v0: the first counter block).
    package let iv: [UInt8]

    /// Whether the message was encrypted under a password (options byte 1).
    package var isPasswordBased: Bool { salts != nil }
    /// The options byte (v0 writes 0 although it is password-based).
    package var options: UInt8 { version != 0 && isPasswordBased ? 1 : 0 }
    /// Header length in bytes: 34 for password-based messages, 18 for key-based ones.
    package var length: Int { Self.length(passwordBased: isPasswordBased) }
    /// Versions 0 and 1 authenticate the ciphertext only; 2 and 3 the header too.
    package var hmacCoversHeader: Bool { version >= 2 }
    /// Version 0: counter mode and HMAC-SHA1 (padded to 32 bytes); otherwise CBC and HMAC-SHA256.
    package var isCounterMode: Bool { version == 0 }
    /// The smallest valid message: header, one block (none for v0's counter mode), HMAC.
    package var minimumMessageLength: Int { length + (isCounterMode ? 0 : Crypto.blockSize) + Crypto.tagSize }

    /// The header's bytes as they appear in the message.
    package var bytes: [UInt8] {
        var out: [UInt8] = [version, options]
        if let salts { out += salts.encryption + salts.hmac }
        return out + iv
    }

    package static let saltSize = 8
    /// The longest header (password-based).
    package static let maximumLength = 34
    static func length(passwordBased: Bool) -> Int { 2 + (passwordBased ? 2 * saltSize : 0) + Crypto.blockSize }

    /// A header; v3 unless told (the only version `rwsecret` writes; v0 needs salts).
    package init(version: UInt8 = 3, salts: (encryption: [UInt8], hmac: [UInt8])?, iv: [UInt8]) {
        precondition(iv.count == Crypto.blockSize)
        precondition(version <= 3 && (version != 0 || salts != nil), "v0 messages are password-based")
        if let salts { precondition(salts.encryption.count == Self.saltSize && salts.hmac.count == Self.saltSize) }
        self.version = version
        self.salts = salts
        self.iv = iv
    }

    /// Checks the version and options bytes of a message and returns its header length.
    ///
    /// Needs at most 2 bytes; fewer is `tooShort`. A prefix that starts the way
    /// another format does (OpenSSL `enc`'s `Salted__`, the RNCryptor v4 draft's
    /// `RNC` and version 4) is reported as that format once enough of it is there
    /// to tell; otherwise an unknown first byte is `unknownVersion`. With
    /// `moreMayFollow`, a prefix that may still become such a magic is `tooShort`.
    package static func headerLength(of prefix: some Collection<UInt8>, moreMayFollow: Bool = false) throws(RNCryptorError) -> Int {
        var iterator = prefix.makeIterator()
        guard let version = iterator.next() else { throw .tooShort }
        guard (0...3).contains(version) else {
            if let other = ForeignFormat(prefix: prefix) { throw other.error }
            if moreMayFollow, ForeignFormat.allCases.contains(where: { $0.magic.starts(with: prefix) }) { throw .tooShort }
            throw .unknownVersion(version)
        }
        guard let options = iterator.next() else { throw .tooShort }
        switch (version, options) {
        case (0, 0): return length(passwordBased: true)
        case (0, _): throw .unknownOptions(options)
        case (_, 0): return length(passwordBased: false)
        case (_, 1): return length(passwordBased: true)
        default: throw .unknownOptions(options)
        }
    }

    /// Parses the header at the start of `prefix`.
    ///
    /// Throws `unknownVersion`, `unknownOptions`, or `tooShort` when `prefix`
    /// does not hold a whole header.
    package init(parsing prefix: some Collection<UInt8>) throws(RNCryptorError) {
        let length = try Self.headerLength(of: prefix)
        let bytes = Array(prefix.prefix(length))
        guard bytes.count == length else { throw .tooShort }
        version = bytes[0]
        if bytes[1] == 1 || version == 0 {
            salts = (Array(bytes[2..<10]), Array(bytes[10..<18]))
            iv = Array(bytes[18..<34])
        } else {
            salts = nil
            iv = Array(bytes[2..<18])
        }
    }

    /// Checks that a whole message of `messageLength` bytes has room for
    /// the header, at least one block and the HMAC, with whole blocks
    /// (v0: the header and the HMAC; its counter mode needs no whole blocks).
    package func validate(messageLength: Int) throws(RNCryptorError) {
        guard messageLength >= minimumMessageLength else { throw .tooShort }
        guard isCounterMode || (messageLength - length - Crypto.tagSize) % Crypto.blockSize == 0 else { throw .badLength }
    }

    /// Two headers are equal when version, salts and IV are.
    package static func == (a: MessageHeader, b: MessageHeader) -> Bool {
        a.bytes == b.bytes
    }

    /// The password bytes the reference implementation fed to PBKDF2 for this version.
    ///
    /// Version 2 had a bug: it used the password's length in characters
    /// (UTF-16 units, as Objective-C counts) as a byte count, so multi-byte
    /// passwords lost their last bytes. Versions 1 and 3 use every UTF-8 byte.
    /// Other implementations wrote other forms: `kdfPasswords(_:)` lists them all.
    package func kdfPassword(_ password: SecretBytes) -> SecretBytes {
        Self.originalKDFPassword(password, version: version)
    }

    /// Every byte string an RNCryptor implementation is known to have fed to PBKDF2
    /// for `password` at this version, the reference form first (see `PasswordDialects`).
    /// One element for an ASCII password.
    package func kdfPasswords(_ password: SecretBytes) -> [SecretBytes] {
        PasswordDialects.kdfPasswords(password, version: version)
    }

    static func originalKDFPassword(_ password: SecretBytes, version: UInt8) -> SecretBytes {
        guard version == 2 || version == 0 else { return password }
        let utf16Count = password.withUnsafeBytes { raw -> Int in
            var count = 0
            var decoder = UTF8()
            var iterator = raw.makeIterator()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let s): count += s.value > 0xFFFF ? 2 : 1
                case .emptyInput: break loop
                case .error: count += 1
                }
            }
            return count
        }
        return password.slice(0..<min(utf16Count, password.count))
    }
}
