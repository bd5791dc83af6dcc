import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The tool's store options and variables: chooses the password store the way the spec's "Where passwords live" says,
/// and opens it.
///
/// - `--store` wins over `RWSECRET_STORE`; the default is `auto`.
/// - `auto`: `--vault` or `RWSECRET_VAULT` means the vault; otherwise the keyring
///   when some process owns `org.freedesktop.secrets` on the session bus (asked
///   with `NameHasOwner`, which activates nothing), else the vault.
/// - keyring together with `--vault` is bad usage; `RWSECRET_VAULT` is then ignored.
struct StoreSelector: Sendable {
    /// The store chosen, where it lives and why.
    struct Choice: Sendable, Equatable {
        let kind: StoreKind
        /// The vault's path (file store only).
        let vaultPath: String?
        /// Why this store, for `status` and `--verbose`.
        let reason: String
    }

    /// Bad usage (exit 64): conflicting or unknown store options.
    struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
        let description: String
    }

    let storeOption: String?
    let vaultOption: String?
    let environment: [String: String]

    /// - Parameters:
    ///   - storeOption: `--store` (auto, keyring or file), if given.
    ///   - vaultOption: `--vault`, if given.
    ///   - environment: the process environment (`RWSECRET_STORE`, `RWSECRET_VAULT`,
    ///     `XDG_DATA_HOME`, `HOME`, `XDG_RUNTIME_DIR`, `DBUS_SESSION_BUS_ADDRESS`).
    init(storeOption: String?, vaultOption: String?, environment: [String: String]) {
        self.storeOption = storeOption
        self.vaultOption = vaultOption
        self.environment = environment
    }

    /// The store asked for (auto, keyring, file or anything else) and who asked: `--store`,
    /// else `RWSECRET_STORE`, else auto.
    private var requested: (setting: String, source: String) {
        if let storeOption { return (storeOption, "--store \(storeOption)") }
        if let value = nonEmpty("RWSECRET_STORE") { return (value, "RWSECRET_STORE=\(value)") }
        return ("auto", "auto")
    }

    /// Decides which store to use. Under `auto` this may ask the session bus.
    func choose() throws(UsageError) -> Choice {
        let (setting, source) = requested
        switch setting {
        case "keyring":
            if vaultOption != nil { throw UsageError(description: "--vault cannot be used with the keyring store (\(source))") }
            return Choice(kind: .keyring, vaultPath: nil, reason: "\(source) was asked for")
        case "file":
            let (path, origin) = vaultPath()
            return Choice(kind: .file, vaultPath: path, reason: "\(source) was asked for; vault \(origin)")
        case "auto":
            if let vaultOption { return Choice(kind: .file, vaultPath: vaultOption, reason: "auto: --vault was given") }
            if let path = nonEmpty("RWSECRET_VAULT") { return Choice(kind: .file, vaultPath: path, reason: "auto: RWSECRET_VAULT is set") }
            let (path, _) = vaultPath()
            switch secretServiceOnBus() {
            case .running:
                return Choice(kind: .keyring, vaultPath: nil, reason: "auto: a Secret Service owns org.freedesktop.secrets on the session bus")
            case .absent(let why):
                return Choice(kind: .file, vaultPath: path, reason: "auto: \(why), so the vault is used")
            }
        default:
            throw UsageError(description: "unknown store '\(setting)' in \(source == "auto" ? "RWSECRET_STORE" : source) (use auto, keyring or file)")
        }
    }

    /// Opens the chosen store. A keyring that answers but is locked still opens
    /// (check `isLocked`, or call `open()`); the vault asks `passphrase` only when it
    /// must read or create the file.
    /// - Parameter lockWaiting: called once when a write waits more than a second for
    ///   another process's lock.
    func open(_ choice: Choice, passphrase: @escaping VaultPasswordStore.PassphraseProvider,
                     lockWaiting: @escaping @Sendable () -> Void = {}) throws(StoreError) -> any PasswordStore {
        switch choice.kind {
        case .keyring:
            return try openKeyring(lockWaiting: lockWaiting)
        case .file, .memory:
            return openVault(choice, passphrase: passphrase, lockWaiting: lockWaiting)
        }
    }

    /// Starts, on a thread of its own, the part of choosing and opening the keyring that
    /// nobody outside this process can notice, so that it overlaps the argument parsing:
    /// loading libsecret and GLib, connecting to the session bus, and under `auto` asking the
    /// bus (not the Secret Service) with `NameHasOwner`, which activates nothing. Does
    /// nothing when these options cannot choose the keyring or there is no session bus.
    func prepareKeyringInBackground() {
        guard mayChooseKeyring, case .running = busPresence() else { return }
        KeyringPasswordStore.startWarmUp(askingTheBus: requested.setting == "auto")
    }

    /// Whether `choose()` may pick the keyring (without asking the bus).
    private var mayChooseKeyring: Bool {
        switch requested.setting {
        case "keyring": return vaultOption == nil
        case "auto": return vaultOption == nil && nonEmpty("RWSECRET_VAULT") == nil
        default: return false
        }
    }

    /// The keyring's default collection (a locked one still opens).
    func openKeyring(lockWaiting: @escaping @Sendable () -> Void = {}) throws(StoreError) -> KeyringPasswordStore {
        // With no bus at all GDBus would try to autolaunch one (dbus-launch, under X11): never.
        if case .absent(let why) = busPresence() {
            throw .unavailable(reason: why, advice: "run inside a desktop session or set DBUS_SESSION_BUS_ADDRESS, or keep passwords in the encrypted vault instead: --store file")
        }
        return try KeyringPasswordStore(environment: environment, lockWaiting: lockWaiting)
    }

    /// The vault at the choice's path (or the path these options give); nothing is read yet.
    func openVault(_ choice: Choice? = nil, passphrase: @escaping VaultPasswordStore.PassphraseProvider,
                          lockWaiting: @escaping @Sendable () -> Void = {}) -> VaultPasswordStore {
        VaultPasswordStore(path: FilePath(choice?.vaultPath ?? vaultPath().path), passphrase: passphrase, lockWaiting: lockWaiting)
    }

    // MARK: - Paths

    /// The vault path and where it came from: `--vault`, `RWSECRET_VAULT`, or the default
    /// `$XDG_DATA_HOME/rwsecret/vault` (`~/.local/share/rwsecret/vault`).
    func vaultPath() -> (path: String, origin: String) {
        if let vaultOption { return (vaultOption, "from --vault") }
        if let path = nonEmpty("RWSECRET_VAULT") { return (path, "from RWSECRET_VAULT") }
        return (Self.defaultVaultPath(environment), "at the default path")
    }

    /// `$XDG_DATA_HOME/rwsecret/vault`, or `$HOME/.local/share/rwsecret/vault`.
    static func defaultVaultPath(_ environment: [String: String]) -> String { VaultPasswordStore.defaultPath(environment) }

    /// `$XDG_RUNTIME_DIR/rwsecret.lock`, or beside the default vault when there is no runtime folder.
    func keyringLockPath() -> String { KeyringPasswordStore.defaultLockPath(environment) }

    private func nonEmpty(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    // MARK: - The bus

    /// Whether `path` names something, links followed (a dangling link is nothing).
    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    private enum BusAnswer { case running, absent(String) }

    /// Whether a session bus can be found without autolaunching one: an address in
    /// DBUS_SESSION_BUS_ADDRESS, or the `$XDG_RUNTIME_DIR/bus` socket GDBus falls back to.
    private func busPresence() -> BusAnswer {
        if nonEmpty("DBUS_SESSION_BUS_ADDRESS") != nil { return .running }
        if let runtime = environment["XDG_RUNTIME_DIR"], Self.exists(runtime + "/bus") { return .running }
        return .absent("there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
    }

    /// Asks the session bus about `org.freedesktop.secrets` without loading libsecret
    /// when there is plainly no bus (no address and no `$XDG_RUNTIME_DIR/bus`).
    private func secretServiceOnBus() -> BusAnswer {
        if case .absent(let why) = busPresence() { return .absent(why) }
        do throws(StoreError) {
            return try KeyringPasswordStore.secretServiceIsRunning()
                ? .running : .absent("no Secret Service owns org.freedesktop.secrets on the session bus")
        } catch {
            return .absent("the session bus cannot be asked (\(error))")
        }
    }
}
