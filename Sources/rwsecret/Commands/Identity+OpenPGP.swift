import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// OpenPGP secret keys as identities: read from a key file (`gpg --export-secret-keys`, `sq key
/// generate`), armored or binary; a protected key is read once with its passphrase (from
/// `--passphrase-file`, else asked on the terminal) and kept unprotected under the store's own
/// protection, as age identities are.
enum OpenPGPIdentityFiles {
    /// The secret keys `bytes` hold (`path` names them in errors), each with an encryption key
    /// rwsecret can use (`OpenPGP.Identity.parse`); a key without one is an error (65) that says why.
    static func secretKeys(_ bytes: [UInt8], path: String, passphraseFile: String?) throws -> [OpenPGP.Identity] {
        var failure: Error?
        let ask = { () -> SecretBytes? in
            do {
                if let passphraseFile {
                    var text = try readSmallFile(passphraseFile, what: "passphrase file", limit: 1 << 16)
                    defer { SecretBytes.cleanse(&text) }
                    // The first line, without its line end (as gpg --passphrase-file reads it).
                    let line = text.prefix { $0 != 0x0a }
                    return SecretBytes(line.last == 0x0d ? line.dropLast() : line)
                }
                guard Terminal.canAsk else {
                    throw CommandFailure(.dataError, "\(Output.escaped(path)): an OpenPGP secret key protected by a passphrase: give --passphrase-file FILE, or run where the terminal can ask")
                }
                return try Terminal.readSecret(prompt: "Passphrase of the OpenPGP key in \(Output.escaped(path)): ")
            } catch {
                failure = error
                return nil
            }
        }
        do { return try OpenPGP.Identity.parse(bytes, name: path, asking: ask) } catch {
            if let failure { throw failure }
            throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
        }
    }
}
