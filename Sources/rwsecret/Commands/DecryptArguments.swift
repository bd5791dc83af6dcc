import ArgumentParser
@_spi(Testing) import RWSecretKit

/// `rwsecret decrypt [options] [FILE...]`, the hot path, parsed by hand: no ArgumentParser
/// reflection, so no conformance lookup that scans every conformance record of the binary
/// (issue 36: the parse was 13–14 M of the 18.6–19.9 M instructions a one-message decrypt
/// executes outside the KDF, and every command or option added made it dearer).
///
/// Only what is plain is taken here: each option or flag of `decrypt` spelled as its help
/// shows it (`--name value`, `--name=value`, `-o value`), at most once (`--identity`,
/// `--signer-key`, `--password-file`, `--password-label` and `--password-fd` repeat), values that do not
/// start with `-`, FILEs, and a result that passes the commands' `validate()`. Anything else
/// (help, `--version`, completion requests, `--`, short flags run together, a bad value, an
/// unknown option, a validation error) returns nil: ArgumentParser parses it as always,
/// with its wording. HandParserTests runs a table of argument vectors through both and
/// compares every property; it also fails when `Decrypt` gains a property this does not set.
enum DecryptArguments {
    /// Every flag of `decrypt` (with `GlobalOptions`').
    static let flags: Set<String> = [
        "--verbose", "--quiet", "--json", "--binary", "--ask-password", "--no-store", "--allow-legacy", "--id-column", "--in-band",
    ]
    /// The options that take one value.
    static let singleValued: Set<String> = [
        "--store", "--vault", "-o", "--key-file", "--iterations", "--jobs", "--memory", "--max-kdf-cost",
    ]
    /// The options that may be repeated.
    static let repeatable: Set<String> = ["--identity", "--signer-key", "--password-file", "--password-label", "--password-fd"]

    /// The command ArgumentParser would make of `arguments`, or nil to let it parse them.
    static func parse(_ arguments: [String]) -> RWSecret.Decrypt? {
        guard arguments.first == "decrypt" else { return nil }
        var files: [String] = []
        var given = Set<String>()
        var single: [String: String] = [:]
        var repeated: [String: [String]] = [:]
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "-" || !argument.hasPrefix("-") {
                // `help` anywhere is ArgumentParser's to read (HotPath leaves it too).
                guard argument != "help" else { return nil }
                files.append(argument)
                continue
            }
            var name = argument
            var value: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard given.insert(name).inserted || repeatable.contains(name) else { return nil }
            if flags.contains(name) {
                guard value == nil else { return nil }
                continue
            }
            guard singleValued.contains(name) || repeatable.contains(name) else { return nil }
            if value == nil {
                guard index < arguments.count else { return nil }
                value = arguments[index]
                index += 1
            }
            guard let value, !value.isEmpty, !value.hasPrefix("-") else { return nil }
            if repeatable.contains(name) { repeated[name, default: []].append(value) } else { single[name] = value }
        }

        var global = GlobalOptions()
        global.store = single["--store"]
        global.vault = single["--vault"]
        global.verbose = given.contains("--verbose")
        global.quiet = given.contains("--quiet")
        // ArgumentParser gives the options of GlobalOptions after `decrypt` to the root's group too.
        var root = RWSecret()
        root.global = global

        var command = RWSecret.Decrypt()
        command.global = global
        command.root = root
        command.files = files
        command.json = given.contains("--json")
        command.binary = given.contains("--binary")
        command.output = single["-o"]
        command.keyFile = single["--key-file"]
        command.identity = repeated["--identity"] ?? []
        command.signerKey = repeated["--signer-key"] ?? []
        if let text = single["--iterations"] {
            guard let iterations = Int(text) else { return nil }
            command.iterations = iterations
        } else {
            command.iterations = Encryptor.defaultIterations
        }
        command.passwordFile = repeated["--password-file"] ?? []
        command.askPassword = given.contains("--ask-password")
        command.passwordLabel = repeated["--password-label"] ?? []
        command.noStore = given.contains("--no-store")
        var descriptors: [Int32] = []
        for text in repeated["--password-fd"] ?? [] {
            guard let fd = Int32(text) else { return nil }
            descriptors.append(fd)
        }
        command.passwordFd = descriptors
        if let text = single["--jobs"] {
            guard let jobs = Int(text) else { return nil }
            command.jobs = jobs
        } else {
            command.jobs = nil
        }
        command.memory = single["--memory"]
        command.maxKdfCost = single["--max-kdf-cost"]
        command.allowLegacy = given.contains("--allow-legacy")
        command.idColumn = given.contains("--id-column")
        command.inBand = given.contains("--in-band")
        do {
            try global.validate()
            try command.validate()
        } catch {
            return nil
        }
        return command
    }
}
