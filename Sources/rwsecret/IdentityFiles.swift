import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// `--identity FILE` beyond age identity files: unencrypted OpenSSH private keys, and the
/// warning for a file that others may read.
enum IdentityFiles {
    /// The OpenSSH private key `bytes` hold (`-----BEGIN OPENSSH PRIVATE KEY-----`); nil when they
    /// hold something else. A key rwsecret cannot use is an error (65) that says why.
    static func openSSHKey(_ bytes: [UInt8], path: String) throws -> AgeSSHIdentity? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard AgeSSHIdentity.looksLikeKey(text) else { return nil }
        do {
            let identity = try AgeSSHIdentity(openSSH: text)
            warnIfLoose(path)
            return identity
        } catch {
            throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
        }
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
