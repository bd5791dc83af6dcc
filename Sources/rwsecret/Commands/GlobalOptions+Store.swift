import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

extension GlobalSettings {
    /// The store selector for these options and the process environment.
    var storeSelector: StoreSelector {
        StoreSelector(storeOption: store, vaultOption: vault, environment: ProcessInfoEnvironment.current)
    }

    /// Which store these options select and why (64 for conflicting options).
    func chooseStore() throws -> StoreSelector.Choice {
        do {
            return try storeSelector.choose()
        } catch {
            throw CommandFailure(.usage, error.description)
        }
    }

    /// Opens the password store these options select, ready to use: a locked keyring,
    /// a missing vault passphrase or a wrong one stop here with 69 and advice.
    /// Under `--verbose`, says which store and why. With `runPasswordsGiven` (passwords or a
    /// key given for the run), the message for a locked or unreachable store also names
    /// `--no-store`, which decrypts with those alone.
    func openStore(runPasswordsGiven: Bool = false) throws -> any PasswordStore {
        let choice = try chooseStore()
        verboseLine("store: \(choice.kind.rawValue) (\(choice.reason))")
        do {
            let store = try openUnready(choice)
            try store.open()
            verboseLine("store location: \(store.location)")
            return store
        } catch {
            let failure = CommandFailure(error)
            guard runPasswordsGiven, failure.status == .unavailable else { throw failure }
            throw CommandFailure(.unavailable, failure.message + "; or add --no-store to decrypt with only the passwords and keys given for this run")
        }
    }

    /// The chosen store, not yet opened (a locked keyring, an unread vault). Without
    /// `asking`, the vault's passphrase is never asked on the terminal (`status --json`).
    func openUnready(_ choice: StoreSelector.Choice, asking: Bool = true) throws(StoreError) -> any PasswordStore {
        let selector = storeSelector
        let passphrase = VaultPassphrase(vaultPath: choice.vaultPath ?? selector.vaultPath().path)
        passphrase.mayAsk = asking
        return try selector.open(choice, passphrase: passphrase.provider, lockWaiting: lockWaitingNotice(choice.kind))
    }

    /// The line said once when another process has held the store's lock for a second.
    func lockWaitingNotice(_ kind: StoreKind) -> @Sendable () -> Void {
        let quiet = self.quiet
        let what = kind == .keyring ? "keyring" : "vault"
        return {
            guard !quiet else { return }
            Output.standardError.line("rwsecret: waiting for the \(what) lock held by another rwsecret process…")
        }
    }
}

/// The process environment as a dictionary (read once per use; never printed).
enum ProcessInfoEnvironment {
    static var current: [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            entry += 1
            guard let equals = strchr(pointer, Int32(UInt8(ascii: "="))) else { continue }
            let name = String(decoding: UnsafeRawBufferPointer(start: pointer, count: pointer.distance(to: equals)), as: UTF8.self)
            // Secrets stay out of Swift Strings.
            if name == "RWSECRET_VAULT_PASSPHRASE" || name == "RWSECRET_PASSWORD" { continue }
            result[name] = String(cString: equals + 1)
        }
        return result
    }
}
