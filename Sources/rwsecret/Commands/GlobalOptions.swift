import ArgumentParser
import RWSecretKit

/// The options every command accepts, before or after its name.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Where passwords live: auto, keyring or file (default: $RWSECRET_STORE, else auto).", valueName: "store"),
            completion: .list(StoreChoice.allCases.map(\.rawValue)))
    var store: String?

    @Option(help: ArgumentHelp("The vault file (implies --store file; default: $RWSECRET_VAULT, else $XDG_DATA_HOME/rwsecret/vault). Its passphrase: $RWSECRET_VAULT_PASSPHRASE, else asked on the terminal.", valueName: "path"),
            completion: .file())
    var vault: String?

    @Flag(help: "Say on stderr which store was chosen and why, with counts and timings (never a secret).")
    var verbose = false

    @Flag(help: "Print nothing on stderr but errors (no progress line; it shows after $RWSECRET_PROGRESS_DELAY seconds, default 1).")
    var quiet = false

    func validate() throws {
        if verbose && quiet { throw ValidationError("--quiet and --verbose cannot be used together") }
        if let store, StoreChoice(rawValue: store) == nil {
            throw ValidationError("unknown store '\(store)' (use auto, keyring or file)")
        }
    }

    /// These options given after a subcommand's name, completed by those given before it.
    func merged(with outer: GlobalOptions) throws -> GlobalOptions {
        var merged = self
        merged.store = store ?? outer.store
        merged.vault = vault ?? outer.vault
        merged.verbose = verbose || outer.verbose
        merged.quiet = quiet || outer.quiet
        try merged.validate()
        return merged
    }

    /// A line on stderr under `--verbose`.
    func verboseLine(_ message: @autoclosure () -> String) {
        guard verbose else { return }
        Output.standardError.line("rwsecret: " + message())
    }
}

/// The `--store` values.
enum StoreChoice: String, CaseIterable, ExpressibleByArgument {
    case auto, keyring, file
}
