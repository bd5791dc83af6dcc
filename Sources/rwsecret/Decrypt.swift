import ArgumentParser
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

extension RWSecret {
    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decrypt",
            abstract: "Decrypt base64 messages, one per line (stdin when no FILE or \"-\").",
            discussion: """
                Tries the stored passwords, then the passwords given for this run \
                (--password-file, --ask-password, $RWSECRET_PASSWORD), until one opens each \
                message; the password that opened the last message goes first. Blank lines and \
                lines starting with # are skipped.

                Output: each plaintext as it is, then a newline, on stdout, in input order, as \
                soon as it and everything before it are done. A message that fails writes no \
                stdout line (its error goes to stderr as FILE:LINE: REASON), and a plaintext that \
                holds a newline prints as two lines: stdout lines do not match input lines one for \
                one. Use --json to join results to their input.

                --json writes one object per message instead, failures included: "source" (the \
                file as given, - for stdin), "line" (1-based), "status" ("decrypted" or \
                "failed"), then "plaintext" (UTF-8 text) or "plaintext_base64" (when the \
                plaintext is not UTF-8) and "password" (the stored label, or where a run-only \
                password came from: FILE:LINE, prompt, RWSECRET_PASSWORD, or key-file), or \
                "error" (the reason). Never a secret.

                Exit status: 0 all decrypted (or no message), 1 some message did not decrypt, \
                64 bad usage, 65 bad data given for the run, 66 a missing file, 69 the store is \
                unavailable, 73 cannot create the output, 74 an I/O error (man rwsecret.decrypt).
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var root: RWSecret

        @Argument(help: ArgumentHelp("Files of messages, one base64 message per line (\"-\" is stdin).", valueName: "file"), completion: .file())
        var files: [String] = []

        @Flag(help: "Write one JSON object per message instead of plaintexts.")
        var json = false

        @Flag(help: "Read one raw (not base64) message of any size from FILE or stdin.")
        var binary = false

        @Option(name: .customShort("o"), help: ArgumentHelp("With --binary: write the plaintext to this file, only once it is authenticated.", valueName: "out"), completion: .file())
        var output: String?

        @Option(help: ArgumentHelp("Open key-based messages with this key: 64 raw bytes or 128 hex characters.", valueName: "file"), completion: .file())
        var keyFile: String?

        @Option(help: ArgumentHelp("Also try the passwords in this file, one per line (repeatable). $RWSECRET_PASSWORD, when set, is one more.", valueName: "file"), completion: .file())
        var passwordFile: [String] = []

        @Flag(help: "Also try a password asked once, without echo.")
        var askPassword = false

        @Flag(help: "Use only the passwords given for this run; never open a store.")
        var noStore = false

        @Option(help: ArgumentHelp("Work on this many messages or passwords at once (default: the number of online CPUs).", valueName: "n"))
        var jobs: Int?

        func validate() throws {
            if noStore && (global.store != nil || global.vault != nil) {
                throw ValidationError("--no-store cannot be combined with --store or --vault")
            }
            if json && binary { throw ValidationError("--json cannot be combined with --binary") }
            if output != nil && !binary { throw ValidationError("-o needs --binary") }
            if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        }

        func run() throws {
            // Here, not in validate(): the parser reports an unknown option only after validate() passes.
            if binary && files.count > 1 { throw ValidationError("--binary reads one message: give at most one FILE") }
            let global = try self.global.merged(with: root.global)
            if noStore && (global.store != nil || global.vault != nil) {
                throw ValidationError("--no-store cannot be combined with --store or --vault")
            }
            // What was given for the run, checked before anything is read or opened.
            var runOnly: [ChainPassword] = []
            for path in passwordFile { runOnly += try RunPasswords.load(file: path) }
            if askPassword { runOnly.append(ChainPassword(name: "prompt", secret: try Terminal.readRunPassword())) }
            if let fromEnvironment = try RunPasswords.fromEnvironment() { runOnly.append(fromEnvironment) }
            let keys = try keyFile.map(KeyFile.load)

            let client = PasswordClient(runOnly: runOnly) {
                if noStore {
                    global.verboseLine("store: none (--no-store)")
                    return nil
                }
                return try global.openStore(runPasswordsGiven: !runOnly.isEmpty || keys != nil)
            }
            let session = DecryptSession(client: client, keys: keys, json: json, global: global,
                                         jobs: jobs ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
            session.emptyChainHint = { [noStore] in EmptyChainHint.text(global: global, noStore: noStore) }
            let status = binary
                ? try BinaryDecryption(session: session, output: output).run(file: files.first ?? "-")
                : try session.run(files: files.isEmpty ? ["-"] : files)
            global.verboseLine("key derivations: \(KeyDerivation.derivationCount)")
            throw CommandFailure.silent(status)
        }
    }
}
