import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

extension GlobalOptions {
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
            let store = try storeSelector.open(choice, passphrase: Self.vaultPassphrase)
            if let keyring = store as? KeyringPasswordStore, keyring.isLocked {
                throw StoreError.locked(advice: KeyringPasswordStore.lockedAdvice)
            }
            if let vault = store as? VaultPasswordStore { try vault.unlock() }
            verboseLine("store location: \(store.location)")
            return store
        } catch let error as StoreError {
            let failure = CommandFailure(error)
            guard runPasswordsGiven, failure.status == .unavailable else { throw failure }
            throw CommandFailure(.unavailable, failure.message + "; or add --no-store to decrypt with only the passwords given for this run")
        }
    }

    /// The vault passphrase: `RWSECRET_VAULT_PASSPHRASE`, else asked without echo on the
    /// controlling terminal when there is one, even with stdin a pipe (twice for a new
    /// vault), else 69 with advice.
    static func vaultPassphrase(_ request: VaultPasswordStore.PassphraseRequest) throws(StoreError) -> SecretBytes {
        if let value = getenv("RWSECRET_VAULT_PASSPHRASE") {
            // Copied straight from the C string: no unwiped Swift String of the secret.
            return SecretBytes(UnsafeRawBufferPointer(start: value, count: strlen(value)))
        }
        guard Terminal.canAsk else {
            throw .unavailable(
                reason: "the vault needs its passphrase and there is no terminal to ask it on",
                advice: "set RWSECRET_VAULT_PASSPHRASE")
        }
        do {
            switch request {
            case .open:
                return try Terminal.readSecret(prompt: "Vault passphrase: ")
            case .create:
                let first = try Terminal.readSecret(prompt: "New vault passphrase: ")
                let second = try Terminal.readSecret(prompt: "Again: ")
                guard first.isEqual(to: second) else {
                    throw StoreError.passphraseRejected([ValidationFailure(
                        domain: "org.rwsecret.prompt", code: 1,
                        description: "the two passphrases differ", reason: "type the same passphrase twice")])
                }
                return first
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .unavailable(reason: "cannot ask for the vault passphrase (\(error))", advice: "set RWSECRET_VAULT_PASSPHRASE")
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
