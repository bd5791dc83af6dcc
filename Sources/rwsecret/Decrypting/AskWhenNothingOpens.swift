import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Issue 35, "when nothing opens, ask": on a terminal, once the chain has failed on a
/// password-based message, the person is asked once (no echo, on `/dev/tty`), as age, gpg
/// and ansible-vault ask. The password typed is tried on that message, then goes first
/// for the rest of the run; it is never stored. Scripts (no terminal, or stderr not a
/// terminal) are not asked: their runs are what they were. The run (the library's
/// `Decryption`) asks this reporter once and keeps the answer; this is the terminal's part.
final class AskWhenNothingOpens: DecryptionReporter {
    /// The name the typed password has in `--json`'s "password" and `--verbose` (as `--ask-password`'s).
    static let name = "prompt"

    /// Nil when this run is not asked: not on a terminal, `--in-band`, or a password was
    /// already asked for (`--ask-password`).
    init?(inBand: Bool, alreadyAsked: Bool) {
        guard !inBand, !alreadyAsked, isatty(STDERR_FILENO) == 1, Terminal.canAsk else { return nil }
    }

    /// Asks for a password (naming `what`, the message that did not open); nil when the person
    /// gave none (Enter) or one that cannot be a password.
    func password(afterNoneOpened what: String) -> ChainPassword? {
        let secret: SecretBytes
        do {
            secret = try Terminal.readSecret(prompt: "rwsecret: no password opened \(Output.escaped(what)); try another (Enter: none): ")
        } catch {
            return nil
        }
        guard secret.count > 0 else { return nil }
        do { try RunPasswords.check(secret, name: Self.name) } catch {
            Output.standardError.line("rwsecret: \(error)")
            return nil
        }
        return ChainPassword(name: Self.name, secret: secret)
    }
}
