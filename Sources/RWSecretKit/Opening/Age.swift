/// age (age-encryption.org/v1): its identities, which open files written to them, its
/// recipients, which files are written to, and encryption. ``MessageOpener`` opens age files.
public enum Age {
    /// An identity that opens age files written to its recipient: an X25519 identity
    /// (`AGE-SECRET-KEY-1…`) or an unencrypted OpenSSH private key (`ssh-ed25519`, `ssh-rsa`).
    public struct Identity: Sendable {
        package let named: NamedIdentity

        /// The name ``/RWSecretCore/Opener/identity(_:)`` reports when this identity opens a file.
        public var name: String { named.name }

        /// The identities of an age identity file (one `AGE-SECRET-KEY-1…` per line, `#`
        /// comments and blank lines ignored), or the one key of an OpenSSH private key file.
        /// Each is named `name`, or `name#N` when the file holds several.
        public static func parse(_ text: String, name: String) throws(KeyError) -> [Identity] {
            if AgeSSHIdentity.looksLikeKey(text) {
                do { return [Identity(named: NamedIdentity(name: name, ssh: try AgeSSHIdentity(openSSH: text)))] } catch {
                    throw KeyError(.malformed, "\(error)")
                }
            }
            return try parseX25519(text, name: name)
        }

        /// The X25519 identities of an age identity file alone (age's `ParseIdentities`: one
        /// `AGE-SECRET-KEY-1…` per line, `#` comments and blank lines ignored), as `age-keygen`
        /// writes it; anything else (an OpenSSH key too) is refused. Each is named `name`, or
        /// `name#N` when the file holds several.
        public static func parseX25519(_ text: String, name: String) throws(KeyError) -> [Identity] {
            let parsed: [AgeX25519Identity]
            do { parsed = try AgeX25519Identity.parseFile(text) } catch {
                switch error {
                case .unsupported: throw KeyError(.unsupported, "\(error)")
                case .empty: throw KeyError(.empty, "\(error)")
                case .malformed: throw KeyError(.malformed, "\(error)")
                }
            }
            return parsed.enumerated().map { index, identity in
                Identity(named: NamedIdentity(name: parsed.count == 1 ? name : "\(name)#\(index + 1)", identity: identity))
            }
        }

        /// The recipient files are written to for this identity (`age1…`, or the OpenSSH key's
        /// public key); nil only for an OpenSSH key age does not encrypt to.
        public var recipient: Recipient? {
            switch named.credential {
            case .ageX25519(let identity): try? Recipient(identity.recipient)
            case .ageSSH(let identity): (try? SSHKeys.recipient(wire: identity.wire, type: identity.stanzaType)).map(Recipient.init(parsed:))
            default: nil
            }
        }

        /// The secret key of an X25519 identity as `age-keygen` writes it (`AGE-SECRET-KEY-1…`),
        /// to keep it (``RWSecretCore/IdentityToAdd/init(label:age:)``, an identity file); nil for an OpenSSH key.
        public var secretKey: SecretBytes? {
            guard case .ageX25519(let identity) = named.credential else { return nil }
            return identity.secretKeyText
        }

        /// A new X25519 identity from OpenSSL's randomness, with `secretKey` to keep it
        /// (`AGE-SECRET-KEY-1…`, what `age-keygen` writes) and `recipient` to give out.
        public static func generate(name: String) -> (identity: Identity, secretKey: SecretBytes, recipient: Recipient) {
            let identity = AgeX25519Identity.generate()
            let recipient = try! Recipient(identity.recipient)  // a fresh key's own recipient parses
            return (Identity(named: NamedIdentity(name: name, identity: identity)), identity.secretKeyText, recipient)
        }
    }

    /// Someone an age file is written to: an `age1…` X25519 recipient, or an SSH public key
    /// line (`ssh-ed25519 AAAA…`, `ssh-rsa AAAA…`, as in `authorized_keys`).
    public struct Recipient: Sendable, CustomStringConvertible {
        package let recipient: any AgeRecipient

        /// Parses one recipient; refuses an identity (a secret key) given as a recipient.
        public init(_ text: String) throws(KeyError) {
            do { recipient = try AgeRecipients.parse(text) } catch {
                throw KeyError(error == .secretKey ? .secretKeyAsRecipient : .malformed, "\(error)")
            }
        }

        /// The recipient as age writes it (`age1…`, or the SSH key's type and base64).
        public var description: String { recipient.text }
    }

    /// Why an identity or a recipient was refused: a code and a description (never a secret).
    /// Not frozen: a struct, as ``/RWSecretCore/DecryptionFailure``.
    public struct KeyError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What went wrong, in kind. Not frozen: later versions may add codes.
        public struct Code: Hashable, Sendable {
            private let value: Int
            private init(_ value: Int) { self.value = value }

            /// Not a valid identity or recipient.
            public static let malformed = Code(1)
            /// A kind of age identity this library cannot use (post-quantum hybrid, plugin).
            public static let unsupported = Code(2)
            /// The text holds no identity.
            public static let empty = Code(3)
            /// A secret key (`AGE-SECRET-KEY-1…`) where a recipient belongs.
            public static let secretKeyAsRecipient = Code(4)
            /// A private key protected by a passphrase, and none given.
            public static let needsPassphrase = Code(5)
            /// The passphrase given does not open the key.
            public static let wrongPassphrase = Code(6)
            /// A library that reads the key (libssh, Botan) is missing; the description names it.
            public static let needsLibrary = Code(7)
            /// An age file written to recipients where one encrypted with a passphrase belongs.
            public static let encryptedToRecipients = Code(8)
        }

        /// What went wrong, in kind.
        public let code: Code
        /// What went wrong, for people.
        public let description: String

        init(_ code: Code, _ description: String) {
            self.code = code
            self.description = description
        }
    }

    /// `plaintext` as an age file to `recipients` (at least one), binary or armored
    /// (`-----BEGIN AGE ENCRYPTED FILE-----`), as `age -r` writes it. A recipient is the
    /// library's (``Age/Recipient``) or the program's own (any ``RWSecretKit/Recipient``): each
    /// wraps one fresh file key, as age's `Wrap`.
    public static func encrypt(_ plaintext: some Collection<UInt8>, to recipients: [any RWSecretKit.Recipient], armor: Bool = false) throws(KeyError) -> [UInt8] {
        guard !recipients.isEmpty else { throw KeyError(.empty, "no recipient given") }
        let fileKey = SecretBytes(Crypto.randomBytes(count: 16))
        var stanzas: [Stanza] = []
        for recipient in recipients {
            let wrapped: [Stanza]
            do { wrapped = try recipient.wrap(fileKey) } catch let error as KeyError { throw error } catch { throw KeyError(.malformed, "\(error)") }
            guard !wrapped.isEmpty, wrapped.allSatisfy(\.isWritable) else {
                throw KeyError(.malformed, "a recipient gave no stanza, or one age's header cannot hold (an empty field, a space, a control character)")
            }
            stanzas += wrapped
        }
        let encryptor = AgeEncryptor(fileKey: fileKey, stanzas: stanzas, armor: armor)
        return encryptor.update(plaintext) + encryptor.finalize()
    }

    /// `plaintext` as an age file under `passphrase` (scrypt, work factor `workFactor`: 18,
    /// age's default, costs about a second and 256 MiB), as `age -p` writes it.
    ///
    /// Blocks for the scrypt derivation; the `async` form runs it on a thread of its own.
    public static func encrypt(_ plaintext: some Collection<UInt8>, passphrase: SecretBytes, workFactor: Int = 18, armor: Bool = false) -> [UInt8] {
        let encryptor = AgeEncryptor(password: passphrase, workFactor: min(max(workFactor, 1), 22), armor: armor)
        return encryptor.update(plaintext) + encryptor.finalize()
    }
}
