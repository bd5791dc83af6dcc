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
        var store: String?
        var vault: String?
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--" { break }
            for (name, slot) in [("--store", 0), ("--vault", 1)] {
                var value: String?
                if argument == name, index < arguments.endIndex {
                    value = arguments[index]
                    index += 1
                } else if argument.hasPrefix(name + "=") {
                    value = String(argument.dropFirst(name.count + 1))
                }
                if let value { if slot == 0 { store = value } else { vault = value } }
            }
        }
        return StoreSelector(storeOption: store, vaultOption: vault, environment: ProcessInfoEnvironment.current)
    }
}
