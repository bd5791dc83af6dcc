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

    func validate() throws {
        do { try validateSettings() } catch let failure as UsageError { throw failure.validationError }
    }
}

extension StoreChoice: ExpressibleByArgument {}

extension UsageError {
    /// The same words for ArgumentParser, which prints them with the usage lines.
    var validationError: ValidationError { ValidationError(message) }
}
