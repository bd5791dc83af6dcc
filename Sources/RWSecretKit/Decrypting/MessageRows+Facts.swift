extension MessageRows {
    /// A structurally valid RNCryptor message a row holds (its base64 decoded): its header
    /// was checked, nothing was tried yet. `PasswordClient.decrypt` or `MessageOpener.open`
    /// opens its ``bytes``.
    public struct Message: Sendable {
        /// The message, decoded from base64.
        public var bytes: [UInt8] { parsed.bytes }
        /// Its format version (0–3).
        public var version: UInt8 { parsed.header.version }
        /// Whether a password opens it (else a key: `MessageKeys`).
        public var isPasswordBased: Bool { parsed.header.isPasswordBased }
        /// Whether its HMAC covers its header too (versions 2 and 3); a version 0 or 1 message's
        /// covers the ciphertext only (a changed IV goes undetected), and opens only where
        /// `LegacyFormats.allowed` was given.
        public var authenticatesHeader: Bool { parsed.header.hmacCoversHeader }
        /// The message with its parsed header (the engine's fast path opens it as it is).
        package let parsed: RWSecretKit.Message

        package init(_ parsed: RWSecretKit.Message) { self.parsed = parsed }
    }

    /// Why a row is no message: a ``code`` to act on and a ``description`` for people.
    ///
    /// Not frozen: a struct with a ``Code``, as ``/RWSecretCore/DecryptionFailure``, so a later version adds
    /// codes without breaking a `switch` over ``code`` (which needs a `default`).
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Why a row is no message, in kind. Not frozen: later versions may add codes.
        public struct Code: Hashable, Sendable {
            private let value: Int
            private init(_ value: Int) { self.value = value }

            /// The row's text is no valid message (``Failure/decryptionFailure`` says why: not
            /// base64, a malformed or unknown format).
            public static let message = Code(1)
            /// Rows are `ID<TAB>MESSAGE` and the row has no TAB.
            public static let missingID = Code(2)
            /// The line, or the wrapped message it begins, is longer than the reader's limit
            /// (`LineReader.maximumLength`, 1 MiB unless told otherwise).
            public static let lineTooLong = Code(3)
        }

        /// Why the row is no message, in kind.
        public let code: Code
        /// For ``Code/message``: why its text is no message (its code `.badBase64` or `.format`).
        public let decryptionFailure: DecryptionFailure?

        private init(code: Code, decryptionFailure: DecryptionFailure?) {
            self.code = code
            self.decryptionFailure = decryptionFailure
        }

        /// The row's text is no valid message, for this reason.
        package init(_ failure: DecryptionFailure) { self.init(code: .message, decryptionFailure: failure) }

        /// Rows are `ID<TAB>MESSAGE` and the row has no TAB.
        public static let missingID = Failure(code: .missingID, decryptionFailure: nil)
        /// The line is longer than the reader's limit.
        public static let lineTooLong = Failure(code: .lineTooLong, decryptionFailure: nil)

        /// Why, in words: the message's reason, or "no ID (expected ID<TAB>MESSAGE)", or "line too long".
        public var description: String {
            if let decryptionFailure { return decryptionFailure.description }
            return code == .missingID ? "no ID (expected ID<TAB>MESSAGE)" : "line too long"
        }
    }

    /// What a row or an input that is no RNCryptor message is, when it is another known format
    /// people mistake for one (or a line too long to read). Not frozen: later versions may add hints.
    public struct Hint: Hashable, Sendable {
        private let value: Int
        private init(_ value: Int) { self.value = value }

        /// OpenSSL `enc` output: `Salted__`, an 8-byte salt, the ciphertext (`openssl enc -d` opens it).
        public static let openSSL = Hint(1)
        /// The RNCryptor v4 draft: `RNC`, then version 4 (never finished; not read here).
        public static let rncryptorV4 = Hint(2)
        /// A line over the line limit: a message that large is a raw (binary) one, opened whole.
        public static let lineTooLong = Hint(3)

        package init(_ format: ForeignFormat) {
            switch format {
            case .openSSLEnc: self = .openSSL
            case .rncryptorV4Draft: self = .rncryptorV4
            }
        }

        package init?(_ error: RNCryptorError) {
            if error == .openSSLEnc { self = .openSSL } else if error == .rncryptorV4Draft { self = .rncryptorV4 } else { return nil }
        }
    }
}
