import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Issue 35, "when nothing opens, ask": on a terminal, once the chain has failed on a
/// password-based message, the person is asked once (no echo, on `/dev/tty`), as age, gpg
/// and ansible-vault ask. The password typed is tried on that message, then goes first
/// for the rest of the run (`PasswordClient.add`); it is never stored. Scripts (no
/// terminal, or stderr not a terminal) are not asked: their runs are what they were.
final class AskWhenNothingOpens: Sendable {
    /// The name the typed password has in `--json`'s "password" and `--verbose` (as `--ask-password`'s).
    static let name = "prompt"

    private enum State { case notAsked, asked(ChainPassword?) }
    private let state = LockedState<State>(.notAsked)
    private let client: PasswordClient
    private let iterations: Int

    /// Nil when this run is not asked: not on a terminal, `--in-band`, or a password was
    /// already asked for (`--ask-password`).
    init?(client: PasswordClient, iterations: Int, inBand: Bool, alreadyAsked: Bool) {
        guard !inBand, !alreadyAsked, isatty(STDERR_FILENO) == 1, Terminal.canAsk else { return nil }
        self.client = client
        self.iterations = iterations
    }

    /// The password typed for this run: asked the first time (naming `what`, the message
    /// that did not open), the same answer after; nil when the person gave none (Enter).
    /// Other messages that fail meanwhile wait for the answer.
    func password(after what: String) -> ChainPassword? {
        state.withLock { state in
            if case .asked(let password) = state { return password }
            state = .asked(nil)
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
            let password = ChainPassword(name: Self.name, secret: secret)
            client.add(password)
            state = .asked(password)
            return password
        }
    }

    /// `message`, which the chain did not open, tried with the typed password alone (asked
    /// now if it was not yet); nil when there is none to try, or the chain tried it already.
    func retry(_ message: Message, after what: String, chain: (any DecryptionHandler)?, parallelism: Int) -> Result<Decrypted, DecryptionFailure>? {
        handler(after: what, chain: chain)?.handle(message, parallelism: parallelism)
    }

    /// The typed password alone as a chain, for a message that `chain` did not open (asked
    /// now if it was not yet); nil when there is none to try, or `chain` tried it already.
    func handler(after what: String, chain: (any DecryptionHandler)?) -> (any DecryptionHandler)? {
        guard let password = password(after: what) else { return nil }
        if chain?.chainPasswords().contains(where: { $0.name == password.name }) == true { return nil }
        return PasswordHandler(password: password, next: nil, iterations: iterations)
    }

    /// Whether a failure is "no password opened it" (the case that asks).
    static func isNoPasswordOpened(_ failure: DecryptionFailure) -> Bool {
        failure.code == .noPasswordOpened
    }
}
