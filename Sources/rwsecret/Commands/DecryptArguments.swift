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
/// compares every property of the `DecryptRun` each makes; it also fails when `Decrypt` gains a
/// property `DecryptRun` does not have (whose memberwise initialiser makes this set each one).
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

    /// The run ArgumentParser's command would make of `arguments`, or nil to let it parse them.
    static func parse(_ arguments: [String]) -> DecryptRun? {
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

        let global = Globals(store: single["--store"], vault: single["--vault"],
                             verbose: given.contains("--verbose"), quiet: given.contains("--quiet"))
        let iterations: Int
        if let text = single["--iterations"] {
            guard let number = Int(text) else { return nil }
            iterations = number
        } else {
            iterations = Encryptor.defaultIterations
        }
        var descriptors: [Int32] = []
        for text in repeated["--password-fd"] ?? [] {
            guard let fd = Int32(text) else { return nil }
            descriptors.append(fd)
        }
        var jobs: Int?
        if let text = single["--jobs"] {
            guard let number = Int(text) else { return nil }
            jobs = number
        }
        // ArgumentParser gives the options of GlobalOptions after `decrypt` to the root's group too.
        let run = DecryptRun(
            global: global, rootGlobal: global, files: files, json: given.contains("--json"), binary: given.contains("--binary"),
            output: single["-o"], keyFile: single["--key-file"], identity: repeated["--identity"] ?? [],
            signerKey: repeated["--signer-key"] ?? [], iterations: iterations, passwordFile: repeated["--password-file"] ?? [],
            askPassword: given.contains("--ask-password"), passwordLabel: repeated["--password-label"] ?? [],
            noStore: given.contains("--no-store"), passwordFd: descriptors, jobs: jobs, memory: single["--memory"],
            maxKdfCost: single["--max-kdf-cost"], allowLegacy: given.contains("--allow-legacy"),
            idColumn: given.contains("--id-column"), inBand: given.contains("--in-band"))
        do {
            try global.validateSettings()
            try run.validate()
        } catch {
            return nil
        }
        return run
    }
}
