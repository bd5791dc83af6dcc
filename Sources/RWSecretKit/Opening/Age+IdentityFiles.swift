/// Identity files as people keep them: OpenSSH private keys (protected by a passphrase or not),
/// age identity files with post-quantum or plugin lines beside X25519 ones, and identity files
/// encrypted with a passphrase (`age-keygen | age -p`). The library reads them; a program asks
/// for the passphrases (its prompts, its tries) and says what went wrong in its own words.
extension Age.Identity {
    /// The OpenSSH or PEM private key `text` holds (`ssh-ed25519`, `ssh-rsa`), named `name`;
    /// nil when it holds no private key of that form. A key protected by a passphrase is read
    /// with `passphrase` (through libssh, or Botan's bcrypt-pbkdf for an OpenSSH RSA key).
    ///
    /// - Throws: ``Age/KeyError``: `needsPassphrase` (a protected key, none given),
    ///   `wrongPassphrase`, `needsLibrary` (libssh or Botan, which read protected keys, is
    ///   missing: said before a passphrase is asked), `unsupported` (a key type age does not
    ///   use), `malformed`.
    public static func parseSSH(_ text: String, name: String, passphrase: SecretBytes?) throws(Age.KeyError) -> Age.Identity? {
        guard AgeSSHIdentity.looksLikeKey(text) else { return nil }
        do { return Age.Identity(named: NamedIdentity(name: name, ssh: try AgeSSHIdentity(key: text, passphrase: passphrase))) } catch {
            let code: Age.KeyError.Code = switch error {
            case .encrypted, .encryptedRSA: .needsPassphrase
            case .wrongPassphrase: .wrongPassphrase
            case .noLibSSH, .noBotan: .needsLibrary
            case .unsupported: .unsupported
            case .malformed: .malformed
            }
            throw Age.KeyError(code, error.description)
        }
    }

    /// As ``parseX25519(_:name:)``, but a post-quantum or plugin identity line among X25519
    /// ones is skipped (age's rule for the lines it cannot use) and said in `skipped` (its line
    /// and type, for a warning); a file of none but those is refused (`unsupported`).
    public static func parseX25519(_ text: String, name: String, skipped: inout [String]) throws(Age.KeyError) -> [Age.Identity] {
        var reasons: [AgeX25519Identity.ParseError] = []
        let parsed: [AgeX25519Identity]
        do { parsed = try AgeX25519Identity.parseFile(text, skipped: &reasons) } catch {
            switch error {
            case .unsupported: throw Age.KeyError(.unsupported, "\(error)")
            case .empty: throw Age.KeyError(.empty, "\(error)")
            case .malformed: throw Age.KeyError(.malformed, "\(error)")
            }
        }
        skipped += reasons.map(\.description)
        return parsed.enumerated().map { index, identity in
            Age.Identity(named: NamedIdentity(name: parsed.count == 1 ? name : "\(name)#\(index + 1)", identity: identity))
        }
    }
}

extension Age {
    /// An age file encrypted with a passphrase (`age -p`) that holds an identity file, as age
    /// takes one for `-i`: read its header first (``init(_:)``: a damaged file, or one written
    /// to recipients, is told before any passphrase is asked), then `open(passphrase:)` with
    /// each passphrase the program gets (a prompt's tries, a file's line).
    public struct EncryptedIdentityFile: Sendable {
        private let bytes: [UInt8]

        /// The age file `bytes` hold; nil when they are no age file (an identity file, a key).
        ///
        /// - Throws: ``Age/KeyError``: `encryptedToRecipients` (an age file written to
        ///   recipients, not with a passphrase: the recipient types in its description),
        ///   `malformed` (not an age file the library opens: a damaged header, a work factor
        ///   above age's limit).
        public init?(_ bytes: some Collection<UInt8>) throws(Age.KeyError) {
            let all = Array(bytes)
            guard let kind = KindRegistry.wholeInputKind(all.prefix(detectionLength)), kind.name == .age else { return nil }
            self.bytes = all
            do { _ = try Self.attempt(all, passphrase: nil) } catch {
                guard case .noMatch(let types) = error.error else { throw Age.KeyError(.malformed, "\(error.error)") }
                guard types.contains("scrypt") else {
                    throw Age.KeyError(.encryptedToRecipients, "an age file encrypted to recipients (\(types.joined(separator: ", "))), not with a passphrase")
                }
            }
        }

        /// The identity file inside (up to 1 MiB) when `passphrase` opens it; nil when it does
        /// not. The caller wipes what is returned.
        ///
        /// Blocks for the scrypt derivation (about a second at age's default work factor).
        ///
        /// - Throws: ``Age/KeyError``: `malformed` (the file changed, a body that does not
        ///   authenticate, an identity file larger than 1 MiB).
        public func open(passphrase: SecretBytes) throws(Age.KeyError) -> [UInt8]? {
            do {
                let plain = try Self.attempt(bytes, passphrase: passphrase)
                Decryption.countKeyDerivations(1)  // its scrypt, one of the process's key derivations
                return plain
            } catch {
                if case .noMatch = error.error {
                    Decryption.countKeyDerivations(1)
                    return nil
                }
                throw Age.KeyError(.malformed, "\(error.error)")
            }
        }

        private static func attempt(_ bytes: [UInt8], passphrase: SecretBytes?) throws(KindFailure) -> [UInt8] {
            let sink = MemoryPlaintext(limit: 1 << 20)
            let passwords = passphrase.map { [ChainPassword(name: "passphrase", secret: $0)] } ?? []
            _ = try MessageKinds.open(AgeKind.self, input: KindInput(bytes: bytes), passwords: passwords, identities: [],
                                      budget: .oneAtATime, into: sink)
            return sink.bytes
        }
    }
}

extension NamedIdentity {
    /// The key of a public age identity under another name (the tool names an `--identity`
    /// OpenSSH key by its file).
    package init(name: String, ssh identity: Age.Identity) {
        guard case .ageSSH(let key) = identity.named.credential else { preconditionFailure("an OpenSSH identity holds an OpenSSH key") }
        self.init(name: name, ssh: key)
    }
}
