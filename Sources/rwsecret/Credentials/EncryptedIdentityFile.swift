import RWSecretKit

/// An age identity file encrypted with a passphrase (`age-keygen | age -p > key.age`), given as
/// `--identity key.age` or `identity import key.age`, as age takes it: its passphrase is asked
/// on the terminal (no echo, /dev/tty; three tries) or read from `--passphrase-file` where the
/// command has one, the file opened by the library's age scrypt path, and the identity file
/// inside used. With neither, one line that says so (65).
enum EncryptedIdentityFile {
    /// The identity file inside `bytes` when they are an age file (nil when they are not);
    /// `path` names it. The caller wipes what is returned.
    static func open(_ bytes: [UInt8], path: String, passphraseFile: String? = nil, orPassphraseFile: Bool = false) throws -> [UInt8]? {
        let shown = Output.escaped(path)
        // Its header, read with nothing to try: a damaged file or one not made with age -p is
        // told before any passphrase is asked.
        let file: Age.EncryptedIdentityFile
        do {
            guard let read = try Age.EncryptedIdentityFile(bytes) else { return nil }
            file = read
        } catch where error.code == .encryptedToRecipients {
            throw CommandFailure(.dataError, "\(shown): \(error): not an identity file (age -p makes one)")
        } catch {
            throw CommandFailure(.dataError, "\(shown): an age file that is not an identity file rwsecret can open: \(error)")
        }
        if let passphraseFile {
            var text = try readSmallFile(passphraseFile, what: "passphrase file", limit: 1 << 16)
            defer { SecretBytes.cleanse(&text) }
            // The first line, without its line end (as for an OpenPGP key's passphrase).
            let line = text.prefix { $0 != 0x0a }
            if let plain = try opened(file, SecretBytes(line.last == 0x0d ? line.dropLast() : line), shown) { return plain }
            throw CommandFailure(.dataError, "\(shown): the passphrase does not open this identity file")
        }
        guard Terminal.canAsk else {
            throw CommandFailure(.dataError, "\(shown): an age identity file encrypted with a passphrase: "
                                 + (orPassphraseFile ? "give --passphrase-file FILE, or run where the terminal can ask" : "run rwsecret on a terminal to be asked for it"))
        }
        for _ in 0..<3 {
            let passphrase = try Terminal.readSecret(prompt: "Enter passphrase for identity file \(shown): ")
            if let plain = try opened(file, passphrase, shown) { return plain }
            Output.standardError.line("rwsecret: \(shown): the passphrase does not open this identity file")
        }
        throw CommandFailure(.dataError, "\(shown): the passphrase does not open this identity file")
    }

    /// The plaintext when `passphrase` opens the file, nil when it does not; any other failure
    /// (a work factor above age's limit, a changed file) is an error that says it. Its scrypt
    /// is one of the run's key derivations (`--verbose`).
    private static func opened(_ file: Age.EncryptedIdentityFile, _ passphrase: SecretBytes, _ shown: String) throws -> [UInt8]? {
        do {
            let plain = try file.open(passphrase: passphrase)
            return plain
        } catch {
            throw CommandFailure(.dataError, "\(shown): \(error)")
        }
    }
}
