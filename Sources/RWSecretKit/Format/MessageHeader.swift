/// The parsed header of an RNCryptor message (versions 1, 2 and 3).
///
/// Layout: version (1 byte), options (1 byte), then for password-based
/// messages an 8-byte encryption salt and an 8-byte HMAC salt, then the 16-byte IV.
/// The ciphertext follows, then a 32-byte HMAC-SHA256.
public struct MessageHeader: Sendable, Equatable {
    /// The format version, 1 to 3.
    public let version: UInt8
    /// The salts of a password-based message; `nil` for a key-based one.
    public let salts: (encryption: [UInt8], hmac: [UInt8])?
    /// The CBC initialisation vector.
    public let iv: [UInt8]

    /// Whether the message was encrypted under a password (options byte 1).
    public var isPasswordBased: Bool { salts != nil }
    /// The options byte.
    public var options: UInt8 { isPasswordBased ? 1 : 0 }
    /// Header length in bytes: 34 for password-based messages, 18 for key-based ones.
    public var length: Int { Self.length(passwordBased: isPasswordBased) }
    /// Version 1 authenticates the ciphertext only; 2 and 3 the header too.
    public var hmacCoversHeader: Bool { version >= 2 }
    /// The smallest valid message: header, one block, HMAC.
    public var minimumMessageLength: Int { length + Crypto.blockSize + Crypto.tagSize }

    /// The header's bytes as they appear in the message.
    public var bytes: [UInt8] {
        var out: [UInt8] = [version, options]
        if let salts { out += salts.encryption + salts.hmac }
        return out + iv
    }

    static let saltSize = 8
    /// The longest header (password-based).
    public static let maximumLength = 34
    static func length(passwordBased: Bool) -> Int { 2 + (passwordBased ? 2 * saltSize : 0) + Crypto.blockSize }

    /// A v3 header (the only version written).
    public init(version: UInt8 = 3, salts: (encryption: [UInt8], hmac: [UInt8])?, iv: [UInt8]) {
        precondition(iv.count == Crypto.blockSize)
        if let salts { precondition(salts.encryption.count == Self.saltSize && salts.hmac.count == Self.saltSize) }
        self.version = version
        self.salts = salts
        self.iv = iv
    }

    /// Checks the version and options bytes of a message and returns its header length.
    ///
    /// Needs at most 2 bytes; fewer is `tooShort`.
    public static func headerLength(of prefix: some Collection<UInt8>) throws(RNCryptorError) -> Int {
        var iterator = prefix.makeIterator()
        guard let version = iterator.next() else { throw .tooShort }
        guard (1...3).contains(version) else { throw .unknownVersion(version) }
        guard let options = iterator.next() else { throw .tooShort }
        switch options {
        case 0: return length(passwordBased: false)
        case 1: return length(passwordBased: true)
        default: throw .unknownOptions(options)
        }
    }

    /// Parses the header at the start of `prefix`.
    ///
    /// Throws `unknownVersion`, `unknownOptions`, or `tooShort` when `prefix`
    /// does not hold a whole header.
    public init(parsing prefix: some Collection<UInt8>) throws(RNCryptorError) {
        let length = try Self.headerLength(of: prefix)
        let bytes = Array(prefix.prefix(length))
        guard bytes.count == length else { throw .tooShort }
        version = bytes[0]
        if bytes[1] == 1 {
            salts = (Array(bytes[2..<10]), Array(bytes[10..<18]))
            iv = Array(bytes[18..<34])
        } else {
            salts = nil
            iv = Array(bytes[2..<18])
        }
    }

    /// Checks that a whole message of `messageLength` bytes has room for
    /// the header, at least one block and the HMAC, with whole blocks.
    public func validate(messageLength: Int) throws(RNCryptorError) {
        guard messageLength >= minimumMessageLength else { throw .tooShort }
        guard (messageLength - length - Crypto.tagSize) % Crypto.blockSize == 0 else { throw .badLength }
    }

    public static func == (a: MessageHeader, b: MessageHeader) -> Bool {
        a.bytes == b.bytes
    }

    /// The password bytes this version feeds to PBKDF2.
    ///
    /// Version 2 had a bug: it used the password's length in characters
    /// (UTF-16 units, as Objective-C counts) as a byte count, so multi-byte
    /// passwords lost their last bytes. Versions 1 and 3 use every UTF-8 byte.
    public func kdfPassword(_ password: SecretBytes) -> SecretBytes {
        guard version == 2 else { return password }
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
