import ArgumentParser
import RWSecretKit

extension RWSecret.Vault {
    /// `rwsecret vault lock`: forgets the passphrase kept by `vault unlock`, at once.
    struct Lock: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lock",
            abstract: "Forget the vault passphrase kept in the session keyring, at once."
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Vault

        func run() throws {
            let global = try group.globals(self.global)
            let (vault, _) = try global.vaultStore()
            do {
                let forgotten = try SessionKeyring.forget(vault: vault.location)
                if !global.quiet {
                    Output.standardError.line(forgotten
                        ? "rwsecret: the vault passphrase was forgotten"
                        : "rwsecret: no vault passphrase was held for \(vault.location)")
                }
            } catch {
                throw CommandFailure(error)
            }
        }
    }
}
