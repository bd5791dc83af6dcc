import ArgumentParser
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

extension RWSecret.Vault {
    /// `rwsecret vault passphrase`: re-encrypts the vault with a new passphrase, all or nothing.
    struct Passphrase: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passphrase",
            abstract: "Change the vault passphrase (all or nothing).",
            discussion: """
                The current passphrase comes from RWSECRET_VAULT_PASSPHRASE, the session keyring \
                or the terminal. The new one is asked twice on the terminal (its rules are said \
                first), or read as one line from stdin when there is no terminal; it must have at \
                least 8 characters and pass the default validators. A passphrase held by \
                `rwsecret vault unlock` is replaced by the new one, until the same time.
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Vault

        func run() throws {
            let global = try group.globals(self.global)
            let (vault, passphrase) = try global.vaultStore()
            do {
                guard vault.exists else { throw StoreError.noVault(path: vault.location) }
                // The current passphrase first: nobody types a new one for a vault they cannot open.
                passphrase.openPrompt = "Current vault passphrase: "
                try vault.open()
                let current = passphrase.lastGiven?.passphrase
                let new: SecretBytes
                if Terminal.isInteractive {
                    new = try passphrase.askNew(intro: VaultPassphrase.rules, prompt: "New vault passphrase: ", current: current)
                } else {
                    // One line, alone: a second line would be quietly dropped, or be the passphrase meant.
                    new = try Terminal.readOnlyStandardInputLine(
                        refusal: "stdin holds more than one line; give the new vault passphrase alone on one line (nothing was changed)")
                    if let current, new.isEqual(to: current) {
                        throw CommandFailure(.dataError, "the new vault passphrase is the current one; choose a new one (nothing was changed)")
                    }
                }
                try vault.changePassphrase(to: new)
                // What `vault unlock` holds would be wrong now: hold the new one instead, until the same time.
                if let held = try? SessionKeyring.lookUp(forVault: vault.location) {
                    _ = try? SessionKeyring.forget(vault: vault.location)
                    let left = held.expiry - Int64(time(nil))
                    if left > 0 { _ = try? SessionKeyring.store(new, forVault: vault.location, lifetime: .seconds(left)) }
                }
                if !global.quiet { Output.standardError.line("rwsecret: the vault passphrase was changed (\(vault.location))") }
            } catch let error as StoreError {
                throw CommandFailure(error)
            }
        }
    }
}
