import ArgumentParser
import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

extension RWSecret {
    /// `rwsecret identity new|list|import|recipient|remove|rename|copy|export`: age identities
    /// kept in the store beside the passwords (typed items the password commands never see).
    struct Identity: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "identity",
            abstract: "Keep age identities in the store: make, list, import, export, rename, copy and remove them.",
            discussion: """
                An identity is the private side of an age recipient (age1...): others encrypt to \
                the recipient (age -r, rwsecret encrypt --to), and decrypt opens their files with \
                every stored identity. Identities live in the store beside the passwords, as items \
                of their own: password list never shows one, nor identity list a password. A \
                secret key is never printed; export writes it to a private file.
                """,
            subcommands: [New.self, List.self, Import.self, Recipient.self, Remove.self, Rename.self, Copy.self, Export.self]
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var root: RWSecret

        /// The global options given before `identity`, before and after the subcommand's name.
        func globals(_ own: GlobalOptions) throws -> Globals {
            try own.merged(with: global.merged(with: root.global))
        }
    }
}

extension GlobalSettings {
    /// The store these options select, opened, as a store of identities.
    func openIdentityStore() throws -> any IdentityStore {
        let store = try openStore()
        guard let identities = store as? any IdentityStore else {
            throw CommandFailure(.unavailable, "the \(store.kind.rawValue) store cannot keep identities")
        }
        return identities
    }
}

extension CommandFailure {
    /// A store error of an identity command: labels are an identity's, not a password's.
    init(identity error: StoreError) {
        let named = error.labels.map { "'\(Output.escaped($0))'" }
        switch error.code {
        case .labelExists where !named.isEmpty:
            self.init(.dataError, (named.count == 1 ? "an identity labelled " : "identities labelled ")
                      + named.joined(separator: ", ") + (named.count == 1 ? " already exists" : " already exist"))
        case .unknownLabel where !named.isEmpty:
            self.init(.dataError, "no identity labelled " + named.joined(separator: ", "))
        case .rejected:
            self.init(.dataError, (named.first.map { "\($0): " } ?? "") + "this identity is already stored")
        default:
            self.init(error)
        }
    }

    /// Runs `body`, turning a store error into an identity command's failure.
    static func identityErrors<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as StoreError { throw CommandFailure(identity: error) }
    }
}

extension StoredIdentity {
    /// The age identity, or a failure that names the damaged item (never its secret).
    func checkedAge() throws -> Age.Identity {
        guard let identity = age, identity.secretKey != nil else { throw damaged }
        return identity
    }

    /// The age identity's recipient (`age1…`), or a failure that names the damaged item.
    func ageRecipient() throws -> String {
        guard let recipient = try checkedAge().recipient else { throw damaged }
        return recipient.description
    }

    /// That this stored item is not the identity its kind says (never its secret).
    var damaged: CommandFailure {
        CommandFailure(.dataError, "the stored identity '\(Output.escaped(label))' is not a valid \(kind.rawValue) identity")
    }

    /// The OpenPGP key, or a failure that names the damaged item (never its secret).
    func checkedOpenPGP() throws -> OpenPGP.Identity {
        guard let key = openPGP else { throw damaged }
        return key
    }

    /// What `identity list` and `identity recipient` show: the age recipient, or the OpenPGP
    /// key's fingerprint (and its user ID, for the list).
    func shown(withUserID: Bool) throws -> String {
        if kind == .openPGP {
            let key = try checkedOpenPGP()
            return withUserID ? key.fingerprint + (key.userID.map { "\t" + Output.escaped($0) } ?? "") : key.fingerprint
        }
        return try ageRecipient()
    }
}

extension RWSecret.Identity {
    /// `rwsecret identity new [LABEL]`.
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "Make an X25519 identity, store it, and print its recipient (age1...) on stdout."
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Identity

        @Argument(help: ArgumentHelp("The label (default: the lowest free identity-N).", valueName: "label"))
        var label: String?

        func run() throws {
            let global = try group.globals(self.global)
            // The recipient is the one thing this command gives: with nowhere to show it, no key is made.
            if StandardStreams.wasClosed(STDOUT_FILENO) {
                throw CommandFailure(.ioError, "stdout: \(Errno(rawValue: EBADF)) (stdout is closed): no identity made")
            }
            try CommandFailure.identityErrors {
                if let label { try PasswordLabel.validate(label) }
                let store = try global.openIdentityStore()
                let made = Age.Identity.generate(name: label ?? "")
                let stored = try store.addIdentities([IdentityToAdd(label: label, secret: made.secretKey)])[0]
                Output.standardOutput.line(made.recipient.description)
                try RWSecret.Identity.shown(stored: [stored])
                if !global.quiet {
                    Output.standardError.line("rwsecret: stored identity '\(Output.escaped(stored))' (\(store.kind.rawValue) store)")
                }
            }
        }
    }

    /// `rwsecret identity list [--json]`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the identities in stored order: label, a TAB, the recipient; never a secret."
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Identity

        @Flag(help: "Write [{\"label\":...,\"kind\":\"age-x25519\",\"recipient\":\"age1...\",\"position\":1}, ...] instead.")
        var json = false

        func run() throws {
            let global = try group.globals(self.global)
            let identities = try CommandFailure.identityErrors { try global.openIdentityStore().identities() }
            let rows = try identities.map { ($0.label, $0.kind, try $0.shown(withUserID: false), $0.kind == .openPGP ? try $0.checkedOpenPGP().userID : nil) }
            if json {
                let items = rows.enumerated().map { index, row in
                    var fields: [(String, JSON.Value)] = [("label", .string(row.0)), ("kind", .string(row.1.rawValue)), ("recipient", .string(row.2))]
                    if row.1 == .openPGP {
                        fields.append(("fingerprint", .string(row.2)))
                        if let userID = row.3 { fields.append(("user_id", .string(userID))) }
                    }
                    return JSON.object(fields + [("position", .int(index + 1))])
                }
                Output.standardOutput.line("[" + items.joined(separator: ",") + "]")
            } else {
                for row in rows { Output.standardOutput.line(Output.escaped(row.0) + "\t" + row.2 + (row.3.map { "\t" + Output.escaped($0) } ?? "")) }
            }
        }
    }

    /// `rwsecret identity import [LABEL] [--file FILE]`.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Store the identities of an age identity file (AGE-SECRET-KEY-1... lines, as age-keygen writes) or an OpenPGP secret key file, and print their recipients.",
            discussion: """
                Reads --file FILE, or stdin (asked without echo when stdin is a terminal). One \
                identity is stored under LABEL; several under LABEL-1, LABEL-2...; without LABEL \
                each takes the lowest free identity-N. All or nothing. An OpenPGP secret key \
                (gpg --export-secret-keys, sq key generate; armored or binary) is one identity \
                per key, with its encryption subkeys; a protected key is read once with its \
                passphrase (--passphrase-file FILE, or asked on the terminal) and kept under the \
                store's protection. Its fingerprint and user ID are printed. An age identity \
                file encrypted with a passphrase (age -p) is opened with it the same way.
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Identity

        @Argument(help: ArgumentHelp("The label (default: the lowest free identity-N).", valueName: "label"))
        var label: String?

        @Option(name: [.customShort("f"), .long], help: ArgumentHelp("The age identity file to read (- is stdin, the default).", valueName: "file"),
                completion: .file())
        var file: String?

        @Option(help: ArgumentHelp("An OpenPGP secret key's or an age -p identity file's passphrase: the first line of FILE (default: asked on the terminal).", valueName: "file"),
                completion: .file())
        var passphraseFile: String?

        func run() throws {
            let global = try group.globals(self.global)
            if let label { try CommandFailure.identityErrors { try PasswordLabel.validate(label) } }
            let path = file ?? "-"
            var bytes: [UInt8]
            if path == "-" && Terminal.isInteractive {
                let line = try Terminal.readSecret(prompt: "Identity (AGE-SECRET-KEY-1...): ")
                bytes = line.withUnsafeBytes { Array($0) }
            } else {
                bytes = try readSmallFile(path, what: "identity file", limit: 1 << 20)
                if path != "-" { IdentityFiles.warnIfLoose(path) }
            }
            defer { SecretBytes.cleanse(&bytes) }
            // `age -p` of an identity file: the identity file inside, once its passphrase opens it.
            if let inside = try EncryptedIdentityFile.open(bytes, path: path == "-" ? "stdin" : path, passphraseFile: passphraseFile, orPassphraseFile: true) {
                SecretBytes.cleanse(&bytes)
                bytes = inside  // the same storage, wiped by the defer
            }
            if OpenPGP.looksLikeKey(bytes) {
                return try importOpenPGP(bytes, path: path, global: global)
            }
            let parsed: [Age.Identity]
            do { parsed = try Age.Identity.parseX25519(String(decoding: bytes, as: UTF8.self), name: path) } catch {
                throw CommandFailure(.dataError, "\(path == "-" ? "stdin" : Output.escaped(path)): \(error)")
            }
            let labels: [String?] = parsed.count == 1 ? [label] : parsed.indices.map { index in label.map { "\($0)-\(index + 1)" } }
            let adding = zip(parsed, labels).compactMap { IdentityToAdd(label: $1, age: $0) }
            try CommandFailure.identityErrors {
                let store = try global.openIdentityStore()
                let stored: [String]
                do { stored = try store.addIdentities(adding) } catch let error as StoreError {
                    // "Already stored" names the label it is stored under (recipients compared, never secrets).
                    if error.code == .rejected,
                       let existing = try? store.identities().first(where: { stored in
                           stored.kind == .ageX25519 && parsed.contains { $0.recipient?.description == stored.age?.recipient?.description }
                       }) {
                        // The label it would have had only when one was given (not a planned identity-N).
                        let given = self.label == nil ? nil : error.labels.first
                        throw CommandFailure(.dataError, (given.map { "'\(Output.escaped($0))': " } ?? "")
                                             + "this identity is already stored, labelled '\(Output.escaped(existing.label))'")
                    }
                    throw error
                }
                for identity in parsed { Output.standardOutput.line(identity.recipient?.description ?? "") }
                try RWSecret.Identity.shown(stored: stored)
                if !global.quiet {
                    let names = stored.map { "'\(Output.escaped($0))'" }.joined(separator: ", ")
                    Output.standardError.line("rwsecret: stored \(stored.count == 1 ? "identity" : "\(stored.count) identities") \(names) (\(store.kind.rawValue) store)")
                }
            }
        }

        /// Stores the OpenPGP secret keys of a key file, one identity each; prints each one's
        /// fingerprint and user ID.
        func importOpenPGP(_ bytes: [UInt8], path: String, global: Globals) throws {
            let keys = try OpenPGPIdentityFiles.secretKeys(bytes, path: path == "-" ? "stdin" : path, passphraseFile: passphraseFile)
            let labels: [String?] = keys.count == 1 ? [label] : keys.indices.map { index in label.map { "\($0)-\(index + 1)" } }
            let adding = zip(keys, labels).map { IdentityToAdd(label: $1, openPGP: $0) }
            try CommandFailure.identityErrors {
                let store = try global.openIdentityStore()
                let stored = try store.addIdentities(adding)
                for key in keys { Output.standardOutput.line(key.fingerprint + (key.userID.map { " " + Output.escaped($0) } ?? "")) }
                if !global.quiet {
                    let names = stored.map { "'\(Output.escaped($0))'" }.joined(separator: ", ")
                    Output.standardError.line("rwsecret: stored \(stored.count == 1 ? "identity" : "\(stored.count) identities") \(names) (\(store.kind.rawValue) store)")
                }
            }
        }
    }

    /// `rwsecret identity recipient LABEL`.
    struct Recipient: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recipient",
            abstract: "Print a stored identity's recipient (age1...), what others encrypt to."
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Identity

        @Argument(help: ArgumentHelp("The identity's label.", valueName: "label"), completion: .custom(LabelCompletion.completeIdentities))
        var label: String

        func run() throws {
            let global = try group.globals(self.global)
            let identity = try CommandFailure.identityErrors { () throws -> StoredIdentity in
                try PasswordLabel.validate(label)
                let identities = try global.openIdentityStore().identities()
                guard let found = identities.first(where: { $0.label == label }) else { throw StoreError.unknownLabels([label]) }
                return found
            }
            Output.standardOutput.line(try identity.shown(withUserID: false))
        }
    }

    /// `rwsecret identity remove LABEL...`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove stored identities (all or nothing: an unknown label removes none).",
            discussion: """
                Asks for confirmation on the terminal first, as gpg does before deleting a secret \
                key: what was encrypted to an identity cannot be opened without it. --yes \
                removes without asking; with no terminal to ask on, --yes is needed (as gpg \
                --batch needs --yes): nothing is removed without it (64).
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Identity

        @Argument(help: ArgumentHelp("The labels to remove.", valueName: "label"), completion: .custom(LabelCompletion.completeIdentities))
        var labels: [String]

        @Flag(name: [.customShort("y"), .long], help: "Remove without asking (needed for scripts: with no terminal, nothing is removed without it).")
        var yes = false

        func validate() throws {
            if labels.isEmpty { throw ValidationError("give at least one label") }
        }

        func run() throws {
            let global = try group.globals(self.global)
            try CommandFailure.identityErrors {
                for label in labels { try PasswordLabel.validate(label) }
                let store = try global.openIdentityStore()
                if !yes {
                    // Unknown labels first (all or nothing), then the question, naming what goes.
                    let stored = try store.identities()
                    let unknown = labels.filter { label in !stored.contains { $0.label == label } }
                    if !unknown.isEmpty { throw StoreError.unknownLabels(unknown) }
                    let named = labels.map { label in
                        let recipient = stored.first { $0.label == label }?.age?.recipient
                        return "'\(Output.escaped(label))'" + (recipient.map { " (\($0))" } ?? "")
                    }
                    let question = "Remove identity \(named.joined(separator: ", "))? What was encrypted to it cannot be opened "
                        + "without it (export it first: rwsecret identity export). [y/N] "
                    switch Terminal.confirm(question) {
                    case nil:
                        throw CommandFailure(.usage, "identity remove asks for confirmation on a terminal, and there is none: "
                                             + "give --yes to remove without asking (nothing was removed)")
                    case false?:
                        throw CommandFailure(.failure, "nothing removed")
                    case true?:
                        break
                    }
                }
                try store.removeIdentities(labels: labels)
            }
            if !global.quiet {
                Output.standardError.line("rwsecret: removed identity " + labels.map { "'\(Output.escaped($0))'" }.joined(separator: ", "))
            }
        }
    }

    /// `rwsecret identity rename OLD NEW`.
    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Rename a stored identity (it keeps its place in the order)."
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Identity

        @Argument(help: ArgumentHelp("The label now.", valueName: "old"), completion: .custom(LabelCompletion.completeIdentities))
        var old: String

        @Argument(help: ArgumentHelp("The new label (1-64 characters, no control characters).", valueName: "new"))
        var new: String

        func run() throws {
            let global = try group.globals(self.global)
            try CommandFailure.identityErrors {
                try PasswordLabel.validate(old)
                try PasswordLabel.validate(new)
                try global.openIdentityStore().renameIdentity(old, to: new)
            }
            if !global.quiet {
                Output.standardError.line("rwsecret: renamed identity '\(Output.escaped(old))' to '\(Output.escaped(new))'")
            }
        }
    }

    /// `rwsecret identity copy --to keyring|file [LABEL...]`: as `password copy`, for identities.
    struct Copy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy",
            abstract: "Copy identities into the other store (vault to keyring, or keyring to vault); all when no label is given.",
            discussion: """
                As password copy: --to keyring copies from the vault, --to file from the keyring \
                into the vault. All or nothing; a label or identity already in the destination \
                refuses the copy.
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Identity

        @Option(help: ArgumentHelp("The store to copy into.", valueName: "store"), completion: .list(["keyring", "file"]))
        var to: StoreKind

        @Argument(help: ArgumentHelp("The labels to copy (default: all).", valueName: "label"), completion: .custom(LabelCompletion.completeIdentities))
        var labels: [String] = []

        func run() throws {
            let global = try group.globals(self.global)
            if let store = global.store, store == to.rawValue {
                throw CommandFailure(.usage, "--store \(store) and --to \(to.rawValue) name the same store; copy goes into the other one")
            }
            let vaultSelector = StoreSelector(storeOption: "file", vaultOption: global.vault, environment: ProcessInfoEnvironment.current)
            let vaultChoice: StoreSelector.Choice
            do { vaultChoice = try vaultSelector.choose() } catch { throw CommandFailure(.usage, error.description) }
            try CommandFailure.identityErrors {
                for label in labels { try PasswordLabel.validate(label) }
                let vault = vaultSelector.openVault(vaultChoice, passphrase: VaultPassphrase(vaultPath: vaultChoice.vaultPath!).provider,
                                                    lockWaiting: global.lockWaitingNotice(.file))
                let keyring = try vaultSelector.openKeyring(lockWaiting: global.lockWaitingNotice(.keyring))
                let source: any IdentityStore = to == .keyring ? vault : keyring
                let destination: any IdentityStore = to == .keyring ? keyring : vault
                try source.open()
                let stored = try source.identities()
                var unknown: [String] = []
                for label in labels where !stored.contains(where: { $0.label == label }) && !unknown.contains(label) { unknown.append(label) }
                if !unknown.isEmpty { throw StoreError.unknownLabels(unknown) }
                let chosen = labels.isEmpty ? stored : stored.filter { labels.contains($0.label) }
                guard !chosen.isEmpty else {
                    if !global.quiet { Output.standardError.line("rwsecret: the \(source.kind.rawValue) store holds no identity; nothing was copied") }
                    return
                }
                try destination.open()
                let copied = try destination.addIdentities(chosen.map { IdentityToAdd(label: $0.label, kind: $0.kind, secret: $0.secret) })
                if !global.quiet {
                    let names = copied.map { "'\(Output.escaped($0))'" }.joined(separator: ", ")
                    Output.standardError.line("rwsecret: copied \(copied.count) identit\(copied.count == 1 ? "y" : "ies") to the \(destination.kind.rawValue) store: \(names)")
                }
            }
        }
    }
}

extension RWSecret.Identity {
    /// Flushes the recipients just written for identities just stored; when stdout failed
    /// (`/dev/full`), says that they are stored all the same and how to see them (74).
    static func shown(stored labels: [String]) throws {
        Output.standardOutput.flush()
        let out = Output.standardOutput
        guard out.failed, !out.brokenPipe else { return }
        let names = labels.map { "'\(Output.escaped($0))'" }.joined(separator: ", ")
        let what = labels.count == 1 ? "identity \(names) was" : "identities \(names) were"
        let see = labels.count == 1 ? "rwsecret identity recipient \(Output.escaped(labels[0]))" : "rwsecret identity list"
        throw CommandFailure(.ioError, "stdout: \(Errno(rawValue: out.errorCode)): \(what) stored, but \(labels.count == 1 ? "its recipient was" : "their recipients were") not shown (\(see))")
    }
}
