import ArgumentParser
import RWSecretKit


extension RWSecret.Password {
    /// `rwsecret password add [LABEL]`: validators, then the store.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Store a password (asked twice without echo, or one line from stdin).",
            discussion: """
                Without LABEL the lowest free password-N is used. The password must be non-empty, \
                at most 1024 bytes, without control characters or line breaks, and not already stored; \
                every rule it breaks is reported. No option takes the password itself.
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Password

        @Argument(help: ArgumentHelp("The label (1-64 characters, no control characters).", valueName: "label"))
        var label: String?

        // Unconditional: `--min-length -3` is a (bad) number, not a missing value.
        @Option(name: .customLong("min-length"), parsing: .unconditional, help: ArgumentHelp("Require at least N characters.", valueName: "n"))
        var minLength: Int?

        @Option(help: ArgumentHelp("Require only these characters: alpha (a-z A-Z), numeric (0-9) or alphanumeric (given at most once).", valueName: "class"),
                completion: .list(PasswordRequirement.allCases.map(\.rawValue)))
        var require: PasswordRequirement?

        func validate() throws {
            if OptionOccurrences.count("--require") > 1 { throw ValidationError("--require can be given only once") }
            if let minLength, minLength < 1 { throw ValidationError("--min-length must be at least 1") }
        }

        func run() throws {
            let global = try group.globals(self.global)
            // Checked in the spec's order: what was given (65), then the store (69).
            if let label {
                do { try PasswordLabel.validate(label) } catch { throw CommandFailure(error) }
            }
            // A label already stored is refused before the secret is asked: the store is opened
            // first when there is one to open (a vault that exists, the keyring). Its failure
            // still comes after what was given (the secret, 65), in the spec's order.
            var opened: Result<any PasswordStore, any Error>?
            if let label, Self.storeExists(global) {
                opened = Result { try global.openStore() }
                if case .success(let store) = opened, (try? store.labels())?.contains(label) == true {
                    throw CommandFailure(.labelExists(label))
                }
            }
            let secret = try readPassword()
            let given = PasswordRequirement.passwordAdd(minimumLength: minLength, requirement: require, stored: [])
            try report(given.validate(secret))

            let store = try opened?.get() ?? global.openStore()
            do {
                // "Not already stored" and the label choice run under the store's lock, so
                // that concurrent adds neither store one secret twice nor take one label twice.
                let minLength = self.minLength, requirement = require
                let used = try store.add([PasswordToAdd(label: label, secret: secret)], check: { secret, stored in
                    PasswordRequirement.passwordAdd(minimumLength: minLength, requirement: requirement, stored: stored).validate(secret)
                })[0]
                if !global.quiet {
                    Output.standardError.line("rwsecret: stored password '\(Output.escaped(used))' (\(store.kind.rawValue) store)")
                }
            } catch {
                throw CommandFailure(Self.namingTheLabel(error, of: secret, in: store))
            }
        }

        /// Whether the chosen store holds anything yet (a new vault is made only once a secret is given).
        private static func storeExists(_ global: Globals) -> Bool {
            guard let choice = try? global.chooseStore() else { return false }
            guard choice.kind == .file else { return true }
            return RWSecret.Status.exists(choice.vaultPath ?? global.storeSelector.vaultPath().path)
        }

        /// "Already stored" says under which label: whoever typed the secret may see where it is.
        private static func namingTheLabel(_ error: StoreError, of secret: SecretBytes, in store: any PasswordStore) -> StoreError {
            let label = error.labels.first, failures = error.failures
            guard error.code == .rejected,
                  failures.contains(where: \.isAlreadyStored),
                  let stored = try? store.passwords(),
                  let match = stored.first(where: { $0.secret.isEqual(to: secret) }) else { return error }
            return .passwordRejected(label: label, failures.map { failure in
                guard failure.isAlreadyStored else { return failure }
                return ValidationFailure(domain: failure.domain, code: failure.code,
                                         description: "this password is already stored, labelled '\(Output.escaped(match.label))'",
                                         reason: failure.failureReason)
            })
        }

        /// On a terminal: asked twice without echo, and both must match; a mismatch asks again,
        /// three tries in all (as for a new vault passphrase). Otherwise one line of stdin.
        private func readPassword() throws -> SecretBytes {
            guard Terminal.isInteractive else { return try Terminal.readOnlyStandardInputLine() }
            var note = ""
            for _ in 0..<3 {
                let first = try Terminal.readSecret(prompt: note + "Password to store: ")
                let second = try Terminal.readSecret(prompt: "Again: ")
                if first.isEqual(to: second) { return first }
                note = "rwsecret: the two passwords differ; try again.\n"
            }
            throw CommandFailure(.dataError, "the two passwords differed three times; nothing was stored")
        }

        /// Prints every failure as its own line and stops with 65.
        private func report(_ failures: [ValidationFailure]) throws {
            guard !failures.isEmpty else { return }
            for failure in failures { Output.standardError.line("rwsecret: \(failure.words)") }
            throw CommandFailure.silent(.dataError)
        }
    }
}

extension PasswordRequirement: ExpressibleByArgument {}
