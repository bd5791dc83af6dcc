/// RNCryptor as one kind of message among the others: what it needs (passwords, or a key
/// file's two keys), how it is told (a raw header's version and options bytes), and one whole
/// message opened through `MessageKind`'s steps.
///
/// Its speed is its own: when the `KindRegistry` says an input is RNCryptor (`.rncryptorRaw`,
/// or `.text` rows of base64), the tool's line mode (`PasswordClient`, `SearchGate`'s PBKDF2
/// kernel, the run's walk of the chain) and `--binary` (`VerifiedStream`'s candidates and
/// chunk ring) open it with the engine made for it. The steps here open one message in
/// memory, a password at a time, for a caller that treats every kind alike.
package enum RNCryptorKind: MessageKind {
    /// A whole message, structurally checked (header, length) before any password is tried.
    package typealias Header = Message
    /// The encryption key of a message whose HMAC verified.
    package typealias Key = SecretBytes

    package static let name = MessageKindName.rncryptor

    /// Passwords, and a key file's encryption and HMAC keys (`--key-file`); no identity.
    package static let needs = CredentialNeeds(passwords: true, keyFile: true, identities: [])

    /// The largest message `parseHeader` reads into memory (line mode's limit for a whole-file kind).
    package static let sizeLimit = 64 << 20

    /// A raw message begins with its version (0–3) and its options byte: the registry's test
    /// of a binary input (`looksRaw`) and of a base64 line's decoded bytes (`headerParses`).
    package static func detect(_ prefix: ArraySlice<UInt8>) -> Bool { headerParses(prefix) }

    /// Whether `prefix` begins with a whole header RNCryptor reads (version, options, salts, IV).
    package static func headerParses(_ prefix: ArraySlice<UInt8>) -> Bool {
        (try? MessageHeader(parsing: Array(prefix.prefix(MessageHeader.maximumLength)))) != nil
    }

    /// A raw message starts with its version (0–3), then bytes that are not base64 text.
    package static func looksRaw(_ prefix: ArraySlice<UInt8>) -> Bool {
        guard let version = prefix.first, version <= 3 else { return false }
        guard prefix.count >= 2 else { return true }
        return !Base64.isAlphabetCharacter(prefix[prefix.startIndex + 1])
    }

    /// One PBKDF2 derivation (10,000 iterations) per form of a password: never worth
    /// running several at once within a memory budget (the chain walk batches them its own way).
    package static func oneTryIsCostly(_ header: Header) -> Bool { false }

    /// Reads the whole message (up to `sizeLimit`) and checks its structure; v0 and v1 are
    /// refused here, as `RNCryptor.decrypt` refuses them by default.
    package static func parseHeader(_ input: KindInput) throws(KindError) -> Header {
        let bytes = try input.readAll(limit: sizeLimit)
        let message: Message
        do { message = try Message(bytes) } catch { throw .header("\(error)") }
        do { try LegacyFormats.refused.check(message.header) } catch { throw .header("\(error)") }
        return message
    }

    /// A password: its HMAC key (one derivation per form an implementation wrote it in) decides.
    /// A key file's keys are offered through the chain's `PasswordClient`, not here.
    package static func unlock(_ header: Header, with credential: Credential) throws(KindError) -> Unlock<Key> {
        guard case .password(let password) = credential, header.header.isPasswordBased else { return .notApplicable }
        for form in header.header.kdfPasswords(password) where header.isAuthentic(hmacKey: header.hmacKey(forKDFPassword: form)) {
            return .unlocked(header.encryptionKey(forKDFPassword: form))
        }
        return .wrongCredential
    }

    /// Deciphers the message whose HMAC `unlock` verified (nothing is written before then).
    package static func decryptBody(_ header: Header, key: Key, from input: KindInput, into sink: some PlaintextSink) throws(KindError) {
        var plaintext: [UInt8]
        do { plaintext = try header.decipher(encryptionKey: key) } catch { throw .payload("\(error)") }
        defer { Crypto.cleanse(&plaintext) }
        var failure: KindError?
        plaintext.withUnsafeBytes { bytes in
            do throws(KindError) { try sink.write(bytes) } catch { failure = error }
        }
        if let failure {
            sink.discard()
            throw failure
        }
    }

    package static func describeNoMatch(_ header: Header) -> [String] { [] }

    /// Base64 of a line's first bytes when it begins another format's magic (`Salted__`, `RNC`).
    static func base64Magic(_ format: ForeignFormat) -> [UInt8] {
        switch format {
        case .openSSLEnc: Array("U2FsdGVk".utf8)
        case .rncryptorV4Draft: Array("Uk5D".utf8)
        }
    }
}

extension ForeignFormat {
    /// How the magic's first bytes read in base64 (`Salted__`: `U2FsdGVk`; `RNC`: `Uk5D`).
    package var base64Magic: [UInt8] { RNCryptorKind.base64Magic(self) }
}
