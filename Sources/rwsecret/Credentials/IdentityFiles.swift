import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// `--identity FILE` beyond age identity files: unencrypted OpenSSH private keys, and the
/// warning for a file that others may read.
enum IdentityFiles {
    /// The OpenSSH private key `bytes` hold (`-----BEGIN OPENSSH PRIVATE KEY-----`), named by
    /// `path`; nil when they hold something else. A key rwsecret cannot use is an error (65)
    /// that says why. A key protected by a passphrase is asked for it on the terminal, as age
    /// and ssh do (three tries); with no terminal it is an error that says so.
    static func openSSHKey(_ bytes: [UInt8], path: String) throws -> Age.Identity? {
        let text = String(decoding: bytes, as: UTF8.self)
        var identity: Age.Identity?
        do {
            identity = try Age.Identity.parseSSH(text, name: path, passphrase: nil)
            guard identity != nil else { return nil }
        } catch where error.code == .needsPassphrase && Terminal.canAsk {
            identity = nil
        } catch where error.code == .needsLibrary && TextSearch.contains("Botan", in: error.description) {
            // Botan's bcrypt-pbkdf opens it: without Botan, say how to have a key rwsecret reads,
            // with the passphrase kept (the library's words name the key KEY; here, its file).
            let key = Output.escaped(path)
            throw CommandFailure(.dataError, "\(key): " + TextSearch.replacing("-f KEY ", with: "-f \(key) ", in: error.description))
        } catch {
            throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
        }
        if identity == nil {
            do {
                identity = try withPassphrase(path: path) { passphrase throws(Age.KeyError) in
                    try Age.Identity.parseSSH(text, name: path, passphrase: passphrase)
                }
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
            }
        }
        warnIfLoose(path)
        return identity
    }

    /// Asks for `path`'s passphrase (no echo, on /dev/tty) until `open` takes it: three tries.
    private static func withPassphrase<T>(path: String, _ open: (SecretBytes) throws(Age.KeyError) -> T) throws -> T {
        var last: Age.KeyError?
        for attempt in 1...3 {
            let passphrase = try Terminal.readSecret(prompt: "Enter passphrase for \(Output.escaped(path)): ")
            do { return try open(passphrase) } catch where error.code == .wrongPassphrase {
                last = error
                // The third is said once, by the error that ends the run.
                if attempt < 3 { Output.standardError.line("rwsecret: \(Output.escaped(path)): the passphrase does not open this key") }
            } catch { throw error }
        }
        throw last!
    }

    /// One warning line when the file may be read or written by its group or others
    /// (as ssh says of a private key); the file is used all the same.
    static func warnIfLoose(_ path: String) {
        var info = stat()
        guard path != "-", stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_mode & 0o077 != 0 else { return }
        let mode = String(info.st_mode & 0o777, radix: 8)
        Output.standardError.line("rwsecret: warning: \(Output.escaped(path)): identity file with mode 0\(mode) that others can access: chmod 600 it")
    }
}
