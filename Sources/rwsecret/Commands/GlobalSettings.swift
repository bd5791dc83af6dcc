import RWSecretKit

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
        if verbose && quiet { throw UsageError("--quiet and --verbose cannot be used together") }
        if let store, StoreChoice(rawValue: store) == nil {
            throw UsageError("unknown store '\(store)' (use auto, keyring or file)")
        }
    }

    /// A line on stderr under `--verbose`.
    func verboseLine(_ message: @autoclosure () -> String) {
        guard verbose else { return }
        Output.standardError.line("rwsecret: " + message())
    }
}

/// The `--store` values.
enum StoreChoice: String, CaseIterable {
    case auto, keyring, file
}

/// Bad usage found once the options are parsed: ArgumentParser's `ValidationError` where
/// ArgumentParser is linked (it prints the words with the command's usage lines); the `decrypt`
/// front (Sources/RWSecretFront), which has no ArgumentParser, runs the whole tool instead,
/// which says it so (nothing has been read by then).
struct UsageError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}
