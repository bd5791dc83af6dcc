/// OpenPGP (RFC 9580, and LibrePGP's AEAD packet): its secret keys, which open messages
/// written to them (`gpg -e -r`, `sq encrypt`, `rnp -e`), and the packets they unwrap.
/// ``MessageOpener`` opens OpenPGP messages, to a password (`gpg -c`) or to keys.
public enum OpenPGP {
    /// Whether `bytes` (a file's start is enough) look like an OpenPGP key file: an armored
    /// `PUBLIC KEY BLOCK` or `PRIVATE KEY BLOCK`, or a binary key packet first. Says which
    /// reader to try (`Identity.parse(_:name:asking:)`); that reader decides.
    public static func looksLikeKey(_ bytes: some Collection<UInt8>) -> Bool {
        OpenPGPTransferableKey.looksLikeKey(Array(bytes))
    }

    /// An OpenPGP secret key that opens messages written to its encryption (sub)key: RSA,
    /// ECDH over Curve25519 and the NIST curves, X25519 and X448; v4 and v6 keys, as
    /// `gpg --export-secret-keys` and `sq key generate` write them, armored or binary.
    ///
    /// ```swift
    /// let keys = try OpenPGP.Identity.parse(keyFileBytes, name: "alice.sec.asc", passphrase: passphrase)
    /// let opened = try MessageOpener(passwords: [], identities: keys).open(message)
    /// print(opened.openedBy.name)  // identity alice.sec.asc
    /// ```
    public struct Identity: Sendable {
        package let named: NamedIdentity

        package init(named: NamedIdentity) { self.named = named }

        /// The name ``/RWSecretCore/Opener/identity(_:)`` reports when this key opens a message.
        public var name: String { named.name }

        /// This key named `name` instead (``/RWSecretCore/Opener/identity(_:)`` reports it): a program that
        /// names every key of a file by the file, where `parse` names each of several `name#N`.
        public func renamed(_ name: String) -> Identity {
            Identity(named: NamedIdentity(name: name, openPGP: key))
        }

        package var key: OpenPGPTransferableKey {
            guard case .openPGPKey(let key) = named.credential else { preconditionFailure("an OpenPGP identity holds an OpenPGP key") }
            return key
        }

        /// The primary key's fingerprint in upper-case hex.
        public var fingerprint: String { key.fingerprintHex }

        /// The key's first user ID (`Name <address>`), if it has one.
        public var userID: String? { key.userID }

        /// The key's public parts, which check the signatures it made
        /// (``OpenPGPSignature/checked(with:)``) and which messages can be written to
        /// (``OpenPGP/Recipient``).
        public var certificate: OpenPGP.Certificate { OpenPGP.Certificate(key: key) }

        /// The key unprotected and ASCII-armored (`-----BEGIN PGP PRIVATE KEY BLOCK-----`, with
        /// its CRC-24), as `gpg --import` takes it: what `rwsecret identity export` writes.
        /// A secret: write it only where the user asked (a private file).
        public func armoredSecretKey() -> SecretBytes {
            key.armoredSecret()!  // read as a secret key: its unprotected form is there
        }

        /// The secret keys of a key file (one or more transferable secret keys, armored or
        /// binary). A key protected by a passphrase is read with `passphrase` (one for the
        /// whole file, as gpg exports it). Each is named `name`, or `name#N` when the file
        /// holds several.
        ///
        /// Reading a protected key costs its S2K (an iterated hash, or Argon2 for v6 keys) once.
        ///
        /// - Throws: ``KeyError``: `malformed`, `publicKey` (a public key where a secret key
        ///   belongs), `needsPassphrase`, `wrongPassphrase`, `unsupported`, `noEncryptionKey`
        ///   (a key with no encryption subkey whose secret is in the file and whose algorithm
        ///   the library has).
        public static func parse(_ bytes: some Collection<UInt8>, name: String, passphrase: SecretBytes? = nil) throws(KeyError) -> [Identity] {
            try parse(bytes, name: name, asking: { passphrase })
        }

        /// `parse(_:name:passphrase:)` with the passphrase asked for only when a protected key
        /// is met, and at most once (a prompt, a secret store): an unprotected key never asks.
        /// Nil from `passphrase` (the user cancelled) refuses the file as `needsPassphrase`.
        public static func parse(_ bytes: some Collection<UInt8>, name: String, asking passphrase: () -> SecretBytes?) throws(KeyError) -> [Identity] {
            var binary = Array(bytes)
            defer { Crypto.cleanse(&binary) }
            let keys: [OpenPGPTransferableKey]
            do {
                keys = try withoutActuallyEscaping(passphrase) { passphrase throws(OpenPGPKeyError) in
                    let ask = { () throws(OpenPGPKeyError) -> SecretBytes in
                        guard let given = passphrase() else { throw .needsPassphrase }
                        return given
                    }
                    return try OpenPGPTransferableKey.parse(binary, secret: true, passphrase: ask)
                }
            } catch {
                throw KeyError(error)
            }
            for key in keys where key.usableDecryptionKeys.isEmpty {
                let why: String
                if key.decryptionKeys.contains(where: { $0.algorithm == 16 }) {
                    why = "its encryption subkey is ElGamal, which OpenSSL does not have (add a cv25519 or RSA subkey: gpg --quick-add-key)"
                } else if key.keys.contains(where: { $0.isForEncryption }) {
                    why = "the secret of its encryption subkey is not in the file (a stub: the key is on a smartcard or was exported without it)"
                } else {
                    why = "it has no encryption subkey (a signing-only key; add one: gpg --quick-add-key FINGERPRINT cv25519 encr)"
                }
                throw KeyError(.noEncryptionKey, "the OpenPGP key \(key.fingerprintHex): \(why)")
            }
            return keys.enumerated().map { index, key in
                Identity(named: NamedIdentity(name: keys.count == 1 ? name : "\(name)#\(index + 1)", openPGP: key))
            }
        }

        /// The one secret key of a key file (`parse(_:name:passphrase:)`, and a file of
        /// several keys refused as `malformed`).
        public init(_ bytes: some Collection<UInt8>, name: String, passphrase: SecretBytes? = nil) throws(KeyError) {
            let keys = try Self.parse(bytes, name: name, passphrase: passphrase)
            guard keys.count == 1 else { throw KeyError(.malformed, "\(keys.count) keys in one file where one was expected (parse reads them all)") }
            self = keys[0]
        }
    }

    /// One public-key encrypted session key packet of a message (PKESK, RFC 9580 5.1): what
    /// an ``RWSecretKit/Identity`` unwraps to open an OpenPGP message.
    public struct EncryptedSessionKey: Sendable, Equatable {
        /// The packet's version: 3, or 6 (RFC 9580).
        public let version: UInt8
        /// The recipient key's ID (8 bytes; all zeros when the sender hid the recipient).
        public let keyID: [UInt8]
        /// v6: the recipient key's fingerprint (nil when hidden, and for v3).
        public let fingerprint: [UInt8]?
        /// The public-key algorithm (RFC 9580 9.1): 1 RSA, 18 ECDH, 25 X25519, 26 X448.
        public let algorithm: UInt8
        /// The algorithm's fields, as the packet holds them (RSA: an MPI; ECDH: the ephemeral
        /// point and the wrapped key).
        public let fields: [UInt8]

        /// Whether the sender hid the recipient (`gpg --throw-keyids`): any key may try it.
        public var isHidden: Bool { keyID.allSatisfy { $0 == 0 } }

        public init(version: UInt8, keyID: [UInt8], fingerprint: [UInt8]?, algorithm: UInt8, fields: [UInt8]) {
            self.version = version
            self.keyID = keyID
            self.fingerprint = fingerprint
            self.algorithm = algorithm
            self.fields = fields
        }

        init(_ packet: OpenPGPPKESK) {
            self.init(version: packet.version, keyID: packet.keyID, fingerprint: packet.fingerprint, algorithm: packet.algorithm, fields: packet.fields)
        }

        var packet: OpenPGPPKESK {
            OpenPGPPKESK(version: version, keyID: keyID, fingerprint: fingerprint, algorithm: algorithm, fields: fields)
        }
    }

    /// A session key an ``RWSecretKit/Identity`` unwrapped from an ``EncryptedSessionKey``.
    public struct SessionKey: Sendable {
        /// The symmetric cipher (RFC 9580 9.3: 7 AES-128, 8 AES-192, 9 AES-256, …) a v3
        /// packet names with the key; nil for a v6 packet, where the encrypted data names it.
        public let algorithm: UInt8?
        /// The key's bytes, without the algorithm octet and the checksum.
        public let key: SecretBytes

        public init(algorithm: UInt8?, key: SecretBytes) {
            self.algorithm = algorithm
            self.key = key
        }
    }

    /// Why an OpenPGP key was refused (read as an identity or a certificate, or encrypted to):
    /// a code and a description (never a secret). Not frozen:
    /// a struct, as ``/RWSecretCore/DecryptionFailure``.
    public struct KeyError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What went wrong, in kind. Not frozen: later versions may add codes.
        public struct Code: Hashable, Sendable {
            private let value: Int
            private init(_ value: Int) { self.value = value }

            /// Not a valid OpenPGP key.
            public static let malformed = Code(1)
            /// A public key (a certificate) where a secret key belongs.
            public static let publicKey = Code(2)
            /// A key protected by a passphrase, and none given.
            public static let needsPassphrase = Code(3)
            /// The passphrase given does not read the key.
            public static let wrongPassphrase = Code(4)
            /// A version, algorithm or protection this library does not read.
            public static let unsupported = Code(5)
            /// No encryption key this library can use (signing-only, a stub, ElGamal).
            public static let noEncryptionKey = Code(6)
            /// A key expired at the time given (``OpenPGP/Recipient``).
            public static let expired = Code(7)
            /// A key its owner revoked.
            public static let revoked = Code(8)
            /// v4 and v6 keys in one message (``OpenPGP/Writer``): a v6 key needs SEIPD v2,
            /// which v4-only readers (gpg 2.2) cannot open.
            public static let mixedVersions = Code(9)
            /// Nothing where one was needed (no recipient).
            public static let empty = Code(10)
        }

        /// What went wrong, in kind.
        public let code: Code
        /// What went wrong, for people.
        public let description: String

        init(_ code: Code, _ description: String) {
            self.code = code
            self.description = description
        }

        init(_ error: OpenPGPKeyError) {
            let code: Code = switch error {
            case .malformed: .malformed
            case .wrongType: .publicKey
            case .needsPassphrase: .needsPassphrase
            case .wrongPassphrase: .wrongPassphrase
            case .unsupported: .unsupported
            case .noEncryptionKey: .noEncryptionKey
            }
            self.init(code, error.description)
        }
    }
}

extension OpenPGP.Identity: KnownIdentity {
    package var credential: Credential { named.credential }

    /// The session key that one of `packets` addressed to this key's encryption keys (or
    /// hiding their recipient) holds; nil when none opens with it. A v6 RSA packet's key is
    /// taken as AES-256's size (the message names its cipher; ``MessageOpener`` knows it).
    public func unwrap(_ packets: [OpenPGP.EncryptedSessionKey]) throws -> OpenPGP.SessionKey? {
        for packet in packets.map(\.packet) {
            for candidate in key.decryptionKeys where packet.isFor(candidate) {
                if let opened = packet.open(with: candidate, keySize: nil) { return OpenPGP.SessionKey(algorithm: opened.cipher, key: opened.key) }
            }
        }
        return nil
    }
}

extension OpenPGPKind {
    /// Tries a program's own ``Identity`` on the message's public-key session key packets (no
    /// key derivation): the session key it unwraps, checked as a key's own is. Not applicable
    /// to a message with no such packet.
    static func unlock(_ header: Header, own identity: any Identity) throws(KindError) -> Unlock<SessionKey> {
        guard !header.pkesks.isEmpty else { return .notApplicable }
        let unwrapped: OpenPGP.SessionKey?
        do { unwrapped = try identity.unwrap(header.pkesks.map(OpenPGP.EncryptedSessionKey.init)) } catch {
            throw .refused("identity \(identity.name): \(error)")
        }
        guard let unwrapped else { return .wrongCredential }
        if let v2 = header.v2 {
            guard unwrapped.key.count == v2.cipher.keySize else { return .wrongCredential }
            return .unlocked(SessionKey(cipher: v2.cipher, key: unwrapped.key))
        }
        guard let id = unwrapped.algorithm else {
            throw .refused("identity \(identity.name): a session key without its cipher for a SEIPD v1 message")
        }
        let cipher = OpenPGPCipher(id)
        guard cipher.keySize == unwrapped.key.count else { return .wrongCredential }
        let session = SessionKey(cipher: cipher, key: unwrapped.key)
        return quickCheck(header.prefix, session) ? .unlocked(session) : .wrongCredential
    }
}

extension NamedIdentity {
    /// The key of a public OpenPGP identity under another name (the tool names every key of an
    /// `--identity` file by the file).
    package init(name: String, openPGP identity: OpenPGP.Identity) {
        self.init(name: name, openPGP: identity.key)
    }
}
