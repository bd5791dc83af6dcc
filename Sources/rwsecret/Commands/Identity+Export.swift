import ArgumentParser
import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

extension RWSecret.Identity {
    /// `rwsecret identity export LABEL -o FILE`: an age identity file, mode 0600, written as
    /// `decrypt --binary -o` writes plaintext (a private unnamed file linked in place once
    /// complete; never over a folder, the store's files, a symbolic link, or a link or file
    /// planted in a sticky world-writable folder; a FIFO or device opened). As `age-keygen -o`,
    /// never over an existing file: the unnamed file is linked as FILE itself, so no other
    /// name ever holds the key and there is no rename a SIGKILL could interrupt.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write a stored identity to an age identity file (mode 0600), for age -d -i or another machine.",
            discussion: """
                The file is what age-keygen writes: a "# public key: age1..." comment, then the \
                AGE-SECRET-KEY-1... line. -o is required: a secret key is never written to stdout \
                or a terminal.
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Identity

        @Argument(help: ArgumentHelp("The identity's label.", valueName: "label"), completion: .custom(LabelCompletion.completeIdentities))
        var label: String

        @Option(name: [.customShort("o"), .long], help: ArgumentHelp("The identity file to write (mode 0600).", valueName: "file"), completion: .file())
        var output: String

        func run() throws {
            let global = try group.globals(self.global)
            if output == "-" || StandardStreams.namesStandardOutput(output) {
                throw CommandFailure(.usage, "refusing to write a secret key to stdout: give -o FILE")
            }
            try CommandFailure.identityErrors { try PasswordLabel.validate(label) }
            // Checked before the store is opened (a passphrase asked): where the file would go.
            let kind: OutputPath.Kind
            do { kind = try OutputPath.kind(of: output) } catch {
                throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): cannot create: \(error)")
            }
            if let used = RunFiles.of(global: global, keyFile: nil, passwordFiles: []).conflict(with: output) {
                throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): cannot create: it is \(used)")
            }
            if let reason = OutputPath.refusal(kind) { throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): \(reason)") }
            var existing = stat()
            if kind == .replaceable && lstat(output, &existing) == 0 {
                throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): \(Self.existsRefusal)")
            }
            if kind == .replaceable && !PrivateFile.canBeUnnamed(in: FilePath(folderPart(of: output))) {
                throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): \(BinaryDecryption.noUnnamedFile(output))")
            }
            let stored = try CommandFailure.identityErrors { () throws -> StoredIdentity in
                let identities = try global.openIdentityStore().identities()
                guard let found = identities.first(where: { $0.label == label }) else { throw StoreError.unknownLabels([label]) }
                return found
            }
            var text: [UInt8]
            if stored.kind == .openPGP {
                // An armored transferable secret key, unprotected, as gpg --import takes it.
                text = try stored.checkedOpenPGP().armoredSecretKey().withUnsafeBytes { Array($0) }
            } else {
                let identity = try stored.checkedAge()
                let recipient = try stored.ageRecipient()
                text = Array("# rwsecret identity \(Output.escaped(label))\n# public key: \(recipient)\n".utf8)
                identity.secretKey!.withUnsafeBytes { text += $0 }  // checkedAge: an X25519 identity
                text.append(0x0a)
            }
            defer { SecretBytes.cleanse(&text) }
            do {
                if kind == .replaceable {
                    let file = try PrivateFile(in: FilePath(folderPart(of: output)), needsName: true)
                    try file.write(text)
                    try file.sync()
                    // Made meanwhile (EEXIST): refused below, never replaced.
                    try file.link(as: FilePath(output), replacing: false)
                } else {
                    // A FIFO or a device: it exists (no O_CREAT), and is never a link (O_NOFOLLOW).
                    let fd = try retryingEINTR { open(output, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC) }
                    defer { close(fd) }
                    guard isatty(fd) == 0 else { throw CommandFailure(.usage, "refusing to write a secret key to a terminal: give -o FILE") }
                    var info = stat()
                    if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                        throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): \(Self.existsRefusal)")
                    }
                    var done = 0
                    while done < text.count {
                        let n = try text.withUnsafeBytes { raw in try retryingEINTR { write(fd, raw.baseAddress! + done, raw.count - done) } }
                        done += n
                    }
                }
            } catch let error as Errno {
                throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): \(OutputPath.createFailure(output, error))")
            }
            if !global.quiet {
                Output.standardError.line("rwsecret: wrote identity '\(Output.escaped(label))' to \(Output.escaped(output)) (mode 0600)")
            }
        }

        /// Why an existing OUT is refused (73), as `age-keygen -o` refuses it.
        static let existsRefusal = "cannot create: it exists (identity export never replaces a file)"
    }
}
