import ArgumentParser
import RWSecretKit

/// The options every command accepts, before or after its name.
struct GlobalOptions: ParsableArguments, GlobalSettings {
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

    func validate() throws { try validateSettings() }
}

/// The global options as plain values: what `decrypt`'s hand parser makes (DecryptArguments),
/// with no ArgumentParser property wrapper built (each wrapper's names are a `Set` whose first
/// use scanned every protocol conformance of the binary, issue 36), and what the `decrypt`
/// run takes from either parser.
struct Globals: GlobalSettings, Sendable {
    var store: String?
    var vault: String?
    var verbose = false
    var quiet = false
}

/// What the global options say, however they were parsed (GlobalOptions, Globals).
protocol GlobalSettings {
    var store: String? { get }
    var vault: String? { get }
    var verbose: Bool { get }
    var quiet: Bool { get }
}

extension GlobalSettings {
    /// The same as plain values.
    var plain: Globals { Globals(store: store, vault: vault, verbose: verbose, quiet: quiet) }

    /// These options given after a subcommand's name, completed by those given before it.
    func merged(with outer: some GlobalSettings) throws -> Globals {
        let merged = Globals(store: store ?? outer.store, vault: vault ?? outer.vault,
                             verbose: verbose || outer.verbose, quiet: quiet || outer.quiet)
        try merged.validateSettings()
        return merged
    }

    /// Bad usage: `--quiet` with `--verbose`, an unknown `--store`.
    func validateSettings() throws {
        if verbose && quiet { throw ValidationError("--quiet and --verbose cannot be used together") }
        if let store, StoreChoice(rawValue: store) == nil {
            throw ValidationError("unknown store '\(store)' (use auto, keyring or file)")
        }
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
