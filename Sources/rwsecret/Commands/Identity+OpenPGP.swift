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

extension StoredIdentity {
    /// The age identity, or a failure that names the damaged item (never its secret).
    func checkedAge() throws -> Age.Identity {
        guard let identity = age, identity.secretKey != nil else { throw damaged }
        return identity
    }

    /// The age identity's recipient (`age1…`), or a failure that names the damaged item.
    func ageRecipient() throws -> String {
        guard let recipient = try checkedAge().recipient else { throw damaged }
        return recipient.description
    }

    /// That this stored item is not the identity its kind says (never its secret).
    var damaged: CommandFailure {
        CommandFailure(.dataError, "the stored identity '\(Output.escaped(label))' is not a valid \(kind.rawValue) identity")
    }

    /// The OpenPGP key, or a failure that names the damaged item (never its secret).
    func checkedOpenPGP() throws -> OpenPGP.Identity {
        guard let key = openPGP else { throw damaged }
        return key
    }

    /// What `identity list` and `identity recipient` show: the age recipient, or the OpenPGP
    /// key's fingerprint (and its user ID, for the list).
    func shown(withUserID: Bool) throws -> String {
        if kind == .openPGP {
            let key = try checkedOpenPGP()
            return withUserID ? key.fingerprint + (key.userID.map { "\t" + Output.escaped($0) } ?? "") : key.fingerprint
        }
        return try ageRecipient()
    }
}
