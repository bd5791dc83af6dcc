import ArgumentParser
import RWSecretKit

extension RWSecret.Password {
    /// `rwsecret password copy --to keyring|file [LABEL…]`: from one store into the other
    /// (a headless vault into a desktop keyring, or back). All or nothing; a label that
    /// exists in the destination, or a secret already stored there, refuses the copy (65).
    struct Copy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy",
            abstract: "Copy passwords into the other store (vault to keyring, or keyring to vault); all labels when none are given.",
            discussion: """
                The source is the other store: --to keyring copies from the vault (--vault or \
                RWSECRET_VAULT say which), --to file copies from the keyring into the vault (the \
                vault at --vault, RWSECRET_VAULT or the default path; created when missing). \
                Labels keep their order. Nothing is copied when a label already exists in the \
                destination or a secret is already stored there. Secrets are never printed.
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Password

        @Option(help: ArgumentHelp("The store to copy into.", valueName: "store"), completion: .list(["keyring", "file"]))
        var to: StoreKind

        @Argument(help: ArgumentHelp("The labels to copy (default: all).", valueName: "label"))
        var labels: [String] = []

        func run() throws {
            let global = try group.globals(self.global)
            if let store = global.store, store == to.rawValue {
                throw CommandFailure(.usage, "--store \(store) and --to \(to.rawValue) name the same store; copy goes into the other one")
            }
            let environment = ProcessInfoEnvironment.current
            let vaultSelector = StoreSelector(storeOption: "file", vaultOption: global.vault, environment: environment)
            let vaultChoice: StoreSelector.Choice
            do { vaultChoice = try vaultSelector.choose() } catch { throw CommandFailure(.usage, error.description) }
            do {
                try copy(global, vaultSelector: vaultSelector, vaultChoice: vaultChoice)
            } catch {
                throw CommandFailure(error)
            }
        }

        private func copy(_ global: Globals, vaultSelector: StoreSelector, vaultChoice: StoreSelector.Choice) throws(StoreError) {
            for label in labels { try PasswordLabel.validate(label) }
            let vault = vaultSelector.openVault(vaultChoice, passphrase: VaultPassphrase(vaultPath: vaultChoice.vaultPath!).provider,
                                                lockWaiting: global.lockWaitingNotice(.file))
            let keyring = try vaultSelector.openKeyring(lockWaiting: global.lockWaitingNotice(.keyring))
            let source: any PasswordStore = to == .keyring ? vault : keyring
            let destination: any PasswordStore = to == .keyring ? keyring : vault
            global.verboseLine("copying from the \(source.kind.rawValue) store (\(source.location)) to the \(destination.kind.rawValue) store (\(destination.location))")
            try source.open()
            let stored = try source.passwords()
            // All or nothing: every label not stored is named (each once, in the order given).
            let known = Set(stored.map(\.label))
            var unknown: [String] = []
            for label in labels where !known.contains(label) && !unknown.contains(label) { unknown.append(label) }
            if !unknown.isEmpty { throw StoreError.unknownLabels(unknown) }
            let chosen = labels.isEmpty ? stored : stored.filter { labels.contains($0.label) }
            guard !chosen.isEmpty else {
                if !global.quiet { Output.standardError.line("rwsecret: the \(source.kind.rawValue) store holds no password; nothing was copied") }
                return
            }
            try destination.open()
            let copied = try destination.add(chosen.map { PasswordToAdd(label: $0.label, secret: $0.secret) })
            if !global.quiet {
                let names = copied.map { "'\(Output.escaped($0))'" }.joined(separator: ", ")
                Output.standardError.line("rwsecret: copied \(copied.count) password\(copied.count == 1 ? "" : "s") to the \(destination.kind.rawValue) store: \(names)")
            }
        }
    }
}

/// `--to keyring|file`: the library's store kinds (the in-memory store is no destination).
extension StoreKind: ExpressibleByArgument {
    public init?(argument: String) {
        guard let kind = StoreKind(rawValue: argument), kind != .memory else { return nil }
        self = kind
    }

    public static var allValueStrings: [String] { [StoreKind.keyring.rawValue, StoreKind.file.rawValue] }
}
