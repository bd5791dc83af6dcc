import ArgumentParser
import RWSecretKit

extension RWSecret {
    /// `rwsecret vault unlock|lock|passphrase`: the vault's passphrase.
    struct Vault: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "vault",
            abstract: "Keep the vault passphrase in the kernel's session keyring for a while, forget it, or change it.",
            subcommands: [Unlock.self, Lock.self, Passphrase.self]
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var root: RWSecret

        /// A group with no subcommand is bad usage: usage on stderr, exit 64.
        func run() throws {
            Output.standardError.write(Self.helpMessage())
            throw ExitCode(ExitStatus.usage.rawValue)
        }

        /// The global options given before `vault`, before and after the subcommand's name.
        func globals(_ own: GlobalOptions) throws -> Globals {
            try own.merged(with: global.merged(with: root.global))
        }
    }
}

extension GlobalSettings {
    /// The vault these options name (`--vault`, `RWSECRET_VAULT`, or the default path),
    /// not yet read; `--store keyring` is bad usage for a vault command.
    func vaultStore(usesSessionKeyring: Bool = true) throws -> (store: VaultPasswordStore, passphrase: VaultPassphrase) {
        if store == StoreChoice.keyring.rawValue {
            throw CommandFailure(.usage, "the vault commands work on the vault; --store keyring cannot be used with them")
        }
        let selector = StoreSelector(storeOption: "file", vaultOption: vault, environment: ProcessInfoEnvironment.current)
        let (path, origin) = selector.vaultPath()
        verboseLine("vault: \(path) (\(origin))")
        let passphrase = VaultPassphrase(vaultPath: path, usesSessionKeyring: usesSessionKeyring)
        let store = selector.openVault(passphrase: passphrase.provider, lockWaiting: lockWaitingNotice(.file))
        return (store, passphrase)
    }
}
