import ArgumentParser
import RWSecretKit

extension RWSecret {
    /// `rwsecret status`: which store, where, why, how many passwords, locked or not.
    ///
    /// A locked keyring, or a vault that cannot be opened, is reported
    /// (`locked: yes`, `passwords: unknown`) with exit 0; 69 only when the store
    /// cannot be reached at all.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Which store, where, why, how many passwords, locked or not."
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var root: RWSecret

        func run() throws {
            let global = try self.global.merged(with: root.global)
            let choice = try global.chooseStore()
            global.verboseLine("store: \(choice.kind.rawValue) (\(choice.reason))")
            let store: any PasswordStore
            do {
                store = try global.storeSelector.open(choice, passphrase: GlobalOptions.vaultPassphrase)
            } catch {
                throw CommandFailure(error)
            }
            var count: Int?
            var note: String?
            if let keyring = store as? KeyringPasswordStore, keyring.isLocked {
                note = "the keyring is locked; \(KeyringPasswordStore.lockedAdvice)"
            } else {
                do {
                    count = try store.labels().count
                } catch {
                    // A locked keyring, or a vault that cannot be opened (no or wrong passphrase).
                    if case .locked = error {
                        note = error.description
                    } else if store.kind == .file, case .unavailable = error {
                        note = error.description
                    } else {
                        throw CommandFailure(error)
                    }
                }
            }
            let out = Output.standardOutput
            out.line("store: \(choice.kind.rawValue)")
            out.line("location: \(store.location)")
            out.line("reason: \(choice.reason)")
            out.line("passwords: \(count.map(String.init) ?? "unknown")")
            out.line("locked: \(count == nil ? "yes" : "no")")
            if let note, !global.quiet { Output.standardError.line("rwsecret: \(note)") }
        }
    }
}
