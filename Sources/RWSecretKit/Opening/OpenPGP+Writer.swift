extension OpenPGP {
    /// An OpenPGP public key (a certificate: a transferable public key, RFC 9580 10.1), as
    /// `gpg --export` and `sq key extract-cert` write it: who a message can be written to
    /// (``Recipient``). Read from a public key file, or from the public part of a secret key
    /// file (its secrets are not read, nor a passphrase asked).
    public struct Certificate: Sendable, CustomStringConvertible {
        package let key: OpenPGPTransferableKey

        package init(key: OpenPGPTransferableKey) { self.key = key }

        /// The primary key's fingerprint in upper-case hex.
        public var fingerprint: String { key.fingerprintHex }

        /// The key's first user ID (`Name <address>`), if it has one.
        public var userID: String? { key.userID }

        /// The primary key's version: 4, or 6 (RFC 9580).
        public var version: Int { Int(key.primary.version) }

        /// The fingerprint, then the user ID when there is one.
        public var description: String { key.words }

        /// The certificates of a key file (one or more, armored or binary; public keys or the
        /// public parts of secret keys).
        ///
        /// - Throws: ``KeyError``: `malformed`, `unsupported` (a key version or algorithm the
        ///   library does not read).
        public static func parse(_ bytes: some Collection<UInt8>) throws(KeyError) -> [Certificate] {
            do { return try OpenPGPTransferableKey.parse(Array(bytes), secret: false).map(Certificate.init(key:)) } catch {
                throw KeyError(error)
            }
        }
    }

    /// Someone an OpenPGP message is written to: the encryption key of a ``Certificate`` that
    /// ``Writer`` wraps the message's session key to (one public-key encrypted session key
    /// packet each), as age's recipients wrap its file key.
    public struct Recipient: Sendable, CustomStringConvertible {
        package let recipient: OpenPGPRecipient

        /// The encryption key of `certificate` to use at `now` (seconds since 1970): its
        /// newest valid encryption subkey (or the primary key, when that is for encryption
        /// and no subkey is).
        ///
        /// - Throws: ``KeyError``: `expired`, `revoked`, `noEncryptionKey`, `unsupported`
        ///   (an algorithm the library cannot encrypt to: ElGamal, an ECDH curve OpenSSL lacks).
        public init(_ certificate: Certificate, now: UInt64) throws(KeyError) {
            do { recipient = try OpenPGPRecipient(certificate.key, now: now) } catch { throw KeyError(error) }
        }

        /// The fingerprint of the encryption key used (upper-case hex).
        public var keyFingerprint: String { recipient.keyHex }

        /// The encryption key's version: 4 (the message is SEIPD v1 with the MDC, which gpg
        /// 2.2 reads) or 6 (SEIPD v2, AES-256 OCB).
        public var version: Int { Int(recipient.key.version) }

        /// ``keyFingerprint``.
        public var description: String { keyFingerprint }
    }

    /// Writes one OpenPGP message as its plaintext comes, in chunks of any size: a session key
    /// wrapped to each ``Recipient``, then one literal data packet (binary, uncompressed)
    /// encrypted under AES-256: SEIPD v1 with the MDC for v4 keys, SEIPD v2 (OCB, 64 KiB
    /// chunks) for v6 keys. What `gpg -e -r` does to a stream, and `rwsecret encrypt --to-key`
    /// to its input; memory stays bounded whatever the input. As ``Age/Writer``: give each
    /// piece of plaintext to ``update(_:)`` and write what it returns, then what
    /// ``finalize()`` returns.
    public final class Writer {
        private let writer: OpenPGPMessageWriter

        /// A message to `recipients` (at least one; all v4 keys or all v6 keys), binary or
        /// armored (`-----BEGIN PGP MESSAGE-----`), its literal packet named `fileName` (at
        /// most 255 bytes are kept; may be empty) and dated `date` (seconds since 1970).
        ///
        /// - Throws: ``KeyError``: `empty` (no recipient), `mixedVersions`, `unsupported`
        ///   (a key OpenSSL refuses).
        public init(to recipients: [Recipient], armor: Bool = false, fileName: [UInt8] = [], date: UInt32) throws(KeyError) {
            guard !recipients.isEmpty else { throw KeyError(.empty, "no recipient given") }
            do { writer = try OpenPGPMessageWriter(recipients: recipients.map(\.recipient), armor: armor, fileName: fileName, date: date) } catch {
                throw KeyError(error)
            }
        }

        /// Takes more plaintext; returns the output ready so far (the header with the first call).
        public func update(_ plaintext: some Collection<UInt8>) -> [UInt8] { writer.update(plaintext) }

        /// Seals the message; returns the rest of it. Call once, after every ``update(_:)``.
        public func finalize() -> [UInt8] { writer.finalize() }
    }
}

extension OpenPGP.KeyError {
    init(_ error: OpenPGPRecipientError) {
        let code: Code = switch error {
        case .expired: .expired
        case .revoked: .revoked
        case .noEncryptionKey: .noEncryptionKey
        case .unsupported: .unsupported
        case .mixedVersions: .mixedVersions
        }
        self.init(code, error.description)
    }
}
