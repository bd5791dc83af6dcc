import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Where the vault passphrase comes from, in this order: `RWSECRET_VAULT_PASSPHRASE`,
/// the kernel's session keyring (`rwsecret vault unlock`), the terminal.
///
/// On a terminal a wrong passphrase may be given again, three tries in all (a
/// passphrase from the variable is never asked again: it would be wrong again).
/// A new vault's rules are stated before its passphrase is asked, and the answer is
/// checked at once, before the confirmation is asked; a rejected or mistyped one is
/// asked again, so nothing typed earlier (the password being added) is thrown away.
/// `@unchecked Sendable` for `VaultPasswordStore.PassphraseProvider`: the store calls the
/// provider under its own lock, one request at a time, and the tool reads `lastGiven`
/// only after the store's operation returned.
final class VaultPassphrase: @unchecked Sendable {
    enum Source { case environment, sessionKeyring, terminal }

    let vaultPath: String
    /// Whether the session keyring is consulted (not by `vault unlock`, which asks anew).
    let usesSessionKeyring: Bool
    /// The last passphrase given, and where it came from: after a successful open it is the right one.
    private(set) var lastGiven: (passphrase: SecretBytes, source: Source)?
    /// The prompt for the passphrase that opens the vault (`vault passphrase` asks for the current one).
    var openPrompt = "Vault passphrase: "
    /// Whether a terminal may be asked (`status --json` never asks: then it is as if there were none).
    var mayAsk = true

    init(vaultPath: String, usesSessionKeyring: Bool = true) {
        self.vaultPath = vaultPath
        self.usesSessionKeyring = usesSessionKeyring
    }

    /// The provider a `VaultPasswordStore` calls.
    var provider: VaultPasswordStore.PassphraseProvider {
        { [self] (request: VaultPasswordStore.PassphraseRequest) throws(StoreError) -> SecretBytes? in try provide(request) }
    }

    func provide(_ request: VaultPasswordStore.PassphraseRequest) throws(StoreError) -> SecretBytes? {
        switch request {
        case .open(let attempt):
            if attempt == 1 {
                if let value = Self.environmentPassphrase() { return given(value, .environment) }
                if usesSessionKeyring, let held = try? SessionKeyring.lookUp(forVault: vaultPath) {
                    return given(held.passphrase, .sessionKeyring)
                }
            } else if lastGiven?.source == .environment {
                return nil
            }
            guard mayAsk, Terminal.canAsk else {
                if attempt == 1 { throw .noPassphrase(path: vaultPath, reason: mayAsk ? "there is no terminal to ask it on" : "status --json never asks") }
                return nil
            }
            var note = ""
            if attempt > 1, lastGiven?.source == .terminal {
                note = "rwsecret: wrong passphrase; try again (\(attempt) of \(VaultPasswordStore.maximumPassphraseTries))\n"
            } else if attempt > 1, lastGiven?.source == .sessionKeyring {
                note = "rwsecret: the passphrase kept by `rwsecret vault unlock` does not open the vault (was it changed?)\n"
            }
            let prompt = note + openPrompt
            return given(try ask(prompt), .terminal)
        case .create:
            if let value = Self.environmentPassphrase() { return given(value, .environment) }
            guard Terminal.canAsk else { throw .noPassphrase(path: vaultPath, reason: "there is no terminal to ask it on") }
            let rules = "rwsecret: a new vault will be created at \(vaultPath).\n" + Self.rules
            return given(try askNew(intro: rules, prompt: "New vault passphrase: "), .terminal)
        }
    }

    /// What a new passphrase must be, said before it is asked.
    static let rules = """
        rwsecret: its passphrase needs at least \(PasswordValidator.vaultPassphraseMinimumLength) characters, \
        no control characters or line breaks, and at most 1024 bytes.

        """

    /// A new passphrase on the terminal: `intro`, then asked, checked at once, confirmed;
    /// asked again after a rejection or a mismatch, three tries in all.
    /// A passphrase equal to `current` (`vault passphrase`) is refused as a rule it breaks.
    func askNew(intro: String, prompt: String, current: SecretBytes? = nil) throws(StoreError) -> SecretBytes {
        var note = intro
        var lastFailures: [ValidationFailure] = []
        for _ in 0..<VaultPasswordStore.maximumPassphraseTries {
            let first = try ask(note + prompt)
            lastFailures = PasswordValidator.newVaultPassphrase.validate(first)
            if let current, first.isEqual(to: current) { lastFailures.append(Self.unchanged) }
            if !lastFailures.isEmpty {
                note = lastFailures.map { "rwsecret: vault passphrase: \($0.words)\n" }.joined() + "rwsecret: try again.\n"
                continue
            }
            let second = try ask("Again: ")
            if first.isEqual(to: second) { return first }
            lastFailures = [Self.mismatch]
            note = "rwsecret: the two passphrases differ; try again.\n"
        }
        throw .passphraseRejected(lastFailures)
    }

    static let unchanged = ValidationFailure(domain: "org.rwsecret.prompt", code: 2,
                                             description: "it is the current passphrase", reason: "choose a new one")

    static let mismatch = ValidationFailure(domain: "org.rwsecret.prompt", code: 1,
                                            description: "the two passphrases differ", reason: "type the same passphrase twice")

    private func given(_ passphrase: SecretBytes, _ source: Source) -> SecretBytes {
        lastGiven = (passphrase, source)
        return passphrase
    }

    private func ask(_ prompt: String) throws(StoreError) -> SecretBytes {
        do {
            return try Terminal.readSecret(prompt: prompt)
        } catch {
            throw .noPassphrase(path: vaultPath, reason: "it cannot be asked (\(error))")
        }
    }

    /// `RWSECRET_VAULT_PASSPHRASE`, taken from the environment once at start-up (`SecretEnvironment`).
    static func environmentPassphrase() -> SecretBytes? { SecretEnvironment.vaultPassphrase }
}
