extension Age {
    /// Writes one age file as its plaintext comes, in chunks of any size: what `age -r` and
    /// `age -p` do to a stream, and `rwsecret encrypt --to / --format age` to its input. Memory
    /// stays bounded whatever the input (age's 64 KiB STREAM chunks, sealed as they fill).
    ///
    /// Give each piece of plaintext to ``update(_:)`` and write what it returns; then write
    /// what ``finalize()`` returns (the last chunk, sealed only there: an empty input still
    /// makes one empty final chunk, as age writes it). ``Age/encrypt(_:to:armor:)`` does the
    /// same for a plaintext held whole.
    public final class Writer {
        private let encryptor: AgeEncryptor

        /// A writer to `recipients` (at least one), binary or armored
        /// (`-----BEGIN AGE ENCRYPTED FILE-----`); each wraps the file key in its stanza.
        public init(to recipients: [Recipient], armor: Bool = false) throws(KeyError) {
            guard !recipients.isEmpty else { throw KeyError(.empty, "no recipient given") }
            do { encryptor = try AgeEncryptor(recipients: recipients.map(\.recipient), armor: armor) } catch {
                throw KeyError(.malformed, "\(error)")
            }
        }

        /// A writer under `passphrase` (scrypt, work factor `workFactor`: 18, age's default,
        /// costs about a second and 256 MiB), as `age -p` writes.
        ///
        /// Blocks for the scrypt derivation.
        public init(passphrase: SecretBytes, workFactor: Int = 18, armor: Bool = false) {
            encryptor = AgeEncryptor(password: passphrase, workFactor: Self.clamped(workFactor), armor: armor)
        }

        /// A writer over an encryptor made already (its file key wrapped).
        init(encryptor: AgeEncryptor) { self.encryptor = encryptor }

        /// The work factors `init(passphrase:workFactor:armor:)` uses: 1...22.
        static func clamped(_ workFactor: Int) -> Int { min(max(workFactor, 1), 22) }

        /// Takes more plaintext; returns the output ready so far (the header with the first call).
        public func update(_ plaintext: some Collection<UInt8>) -> [UInt8] { encryptor.update(plaintext) }

        /// Seals the last chunk; returns the rest of the file. Call once, after every ``update(_:)``.
        public func finalize() -> [UInt8] { encryptor.finalize() }
    }
}

extension Age.Recipient {
    /// The recipients of an age recipients file (`age -R`): one per line, `#` comments and blank
    /// lines ignored; errors name the line. An SSH key of a type age does not encrypt to
    /// (`ecdsa-sha2-*`, `sk-ssh-ed25519@openssh.com`, `sk-ecdsa-…`, as a `github.com/NAME.keys`
    /// list holds) is skipped and named in `skipped` (its line and type), as `age -R` does.
    public static func parseFile(_ text: String, skipped: inout [(line: Int, type: String)]) throws(Age.KeyError) -> [Age.Recipient] {
        do { return try AgeRecipients.parseFile(text, skipped: &skipped).map(Age.Recipient.init(parsed:)) } catch {
            throw Age.KeyError(error == .empty ? .empty : .malformed, "\(error)")
        }
    }

    /// A recipient the package parsed already.
    package init(parsed: any AgeRecipient) { recipient = parsed }
}
