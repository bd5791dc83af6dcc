import RWSecretKit

/// Which store options a command line gives, read before the arguments are parsed, to
/// start the keyring's warm-up (`StoreSelector.prepareKeyringInBackground`) early.
///
/// A guess only decides whether the warm-up starts, never what the run does: the warm-up
/// sends nothing to the Secret Service, and a wrong guess costs some work on another core.
enum KeyringWarmUp {
    /// The selector the command line will most likely use, for `decrypt` without
    /// `--no-store`; nil for any other command.
    static func selector(for arguments: [String]) -> StoreSelector? {
        guard arguments.contains("decrypt"), !arguments.contains("--no-store") else { return nil }
        let values = EarlyArguments.lastValues(of: ["--store", "--vault"], in: arguments)
        return StoreSelector(storeOption: values["--store"], vaultOption: values["--vault"], environment: ProcessInfoEnvironment.current)
    }
}
