import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// The one run-level line of a run whose chain is empty (no stored and no run-only
/// password) when it meets a password-based message (SPEC "Where passwords live"):
/// which store was used and that it holds no password, whether the other store holds
/// some, and how to add one. Said once, before the `no password opened it (tried 0)`
/// failures it explains.
enum EmptyChainHint {
    static let howToAdd = "add one with `rwsecret password add`, or give one for this run (--password-file, --ask-password or RWSECRET_PASSWORD)"

    /// The line, without its `rwsecret: ` prefix.
    static func text(global: Globals, noStore: Bool) -> String {
        if noStore {
            return "no password to try: --no-store uses only the passwords given for this run, and none was given (--password-file, --ask-password or RWSECRET_PASSWORD)"
        }
        guard let choice = try? global.chooseStore() else { return "no password to try: the store holds no password; " + howToAdd }
        let fromOption = global.vault != nil
        let why = fromOption ? " (given with --vault: check the path)" : choice.reason.hasPrefix("auto:") ? " (\(choice.reason))" : ""
        switch choice.kind {
        case .keyring:
            var text = "no password to try: the keyring holds no password\(why)"
            let vault = global.storeSelector.vaultPath().path
            if isRegularFile(vault) {
                text += "; a vault exists at \(vault): use it with --store file (or RWSECRET_STORE=file), or copy its passwords into the keyring"
            }
            return text + "; " + howToAdd
        case .file, .memory:
            let path = choice.vaultPath ?? global.storeSelector.vaultPath().path
            var text = isRegularFile(path)
                ? "no password to try: the vault \(path) holds no password\(why)"
                : "no password to try: the vault \(path) does not exist\(why)"
            if let count = keyringCount(global), count > 0 {
                text += "; the keyring holds \(count) password\(count == 1 ? "" : "s"): use it with --store keyring (or RWSECRET_STORE=keyring)"
            }
            return text + "; " + howToAdd
        }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// How many passwords the keyring holds, when one is running and unlocked (nil otherwise).
    private static func keyringCount(_ global: Globals) -> Int? {
        let selector = StoreSelector(storeOption: "keyring", vaultOption: nil, environment: ProcessInfoEnvironment.current)
        guard let choice = try? selector.choose(),
              (try? KeyringPasswordStore.secretServiceIsRunning()) == true,
              let store = try? selector.open(choice, passphrase: { _ throws(StoreError) in throw .unavailable(reason: "", advice: "") }),
              let labels = try? store.labels() else { return nil }
        return labels.count
    }
}
