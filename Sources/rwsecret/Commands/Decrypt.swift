import ArgumentParser
@_spi(Testing) import RWSecretKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension RWSecret {
    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decrypt",
            abstract: "Open age, OpenPGP and Ansible Vault files, YAML !vault values and RNCryptor base64 lines (stdin when no FILE or \"-\").",
            discussion: """
                Tries the stored passwords (only --password-label's, when given), then the passwords given for this run \
                (--password-file, --ask-password, $RWSECRET_PASSWORD), until one opens each \
                message; the password that opened the last message goes first. On a terminal, when none \
                opens a password-based message, another is asked once (never stored). Blank lines and \
                lines starting with # are skipped. A line over 1 MiB is "line too long": a message \
                that large is made with encrypt --binary and read with --binary.

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
                "error" (the reason). Never a secret. A v0 or v1 plaintext (--allow-legacy) \
                also has "authenticated": "ciphertext-only"; without that member the header \
                and the ciphertext were both authenticated.

                Other kinds: a whole age, Ansible Vault or OpenPGP file (or the !vault values of \
                a YAML file) is recognised by its content and opened with the same passwords, one \
                record each (with --binary: any size, released only once verified); age X25519 \
                files with --identity. Costly password tries (age scrypt, 256 MiB each) run \
                --jobs at once within --memory. docs/kinds.md says what opens and what does not.

                Base64 wrapped over several lines (any width from 16 columns, spaces inside, \
                email "> " quoting) is joined; docs/line-format.md gives the rule.

                Exit status: 0 all decrypted (or no message), 1 some message did not decrypt, \
                64 bad usage, 65 bad data given for the run, 66 a missing file, 69 the store is \
                unavailable, 73 cannot create the output, 74 an I/O error (man rwsecret.decrypt).
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var root: RWSecret

        @Argument(help: ArgumentHelp("Files to open: an age, OpenPGP or Ansible Vault file, a YAML file with !vault values, or RNCryptor messages one base64 message per line (\"-\" is stdin).", valueName: "file"), completion: .file())
        var files: [String] = []

        @Flag(help: "Write one JSON object per message instead of plaintexts.")
        var json = false

        @Flag(help: "Read one raw (not base64) message of any size from FILE or stdin.")
        var binary = false

        @Option(name: .customShort("o"), help: ArgumentHelp("Write the plaintext of one whole message (an age, OpenPGP or Ansible Vault file; with --binary also a raw RNCryptor message) to this file, only once it is authenticated.", valueName: "out"), completion: .file())
        var output: String?

        @Option(help: ArgumentHelp("Open key-based messages with this key: 64 raw bytes or 128 hex characters.", valueName: "file"), completion: .file())
        var keyFile: String?

        @Option(help: ArgumentHelp("Also open age messages with the identities of this file: AGE-SECRET-KEY-1... lines (or an age -p file of them), an OpenSSH id_ed25519 / id_rsa key or an OpenPGP secret key; a passphrase is asked on the terminal (repeatable).", valueName: "file"), completion: .file())
        var identity: [String] = []

        @Option(help: ArgumentHelp("Check the signatures of signed OpenPGP messages with this OpenPGP public key (armored or binary; a certificate or a secret key file too; repeatable). The store's OpenPGP identities and --identity keys are known signers too.", valueName: "file"), completion: .file())
        var signerKey: [String] = []

        @Option(help: ArgumentHelp("PBKDF2 iterations the messages were made with.", valueName: "n"))
        var iterations: Int = Encryptor.defaultIterations

        @Option(help: ArgumentHelp("Also try the passwords in this file, one per line, SECRET or LABEL<TAB>SECRET (repeatable). $RWSECRET_PASSWORD, when set, is one more.", valueName: "file"), completion: .file())
        var passwordFile: [String] = []

        @Flag(help: "Also try a password asked once, without echo.")
        var askPassword = false

        @Option(help: ArgumentHelp("Try only the stored password with this label (repeatable); the passwords given for the run are still tried.", valueName: "label"),
                completion: .custom(LabelCompletion.complete))
        var passwordLabel: [String] = []

        @Flag(help: "Use only the passwords given for this run; never open a store.")
        var noStore = false

        @Option(help: ArgumentHelp("Also try the passwords (lines as in --password-file) a parent process writes into this inherited file descriptor (repeatable).", valueName: "n"))
        var passwordFd: [Int32] = []

        // Unconditional: `--jobs -1` is a (bad) number, not a missing value.
        @Option(parsing: .unconditional, help: ArgumentHelp("Work on this many messages or passwords at once (default: $RWSECRET_JOBS, else the CPUs this process may run on).", valueName: "n"))
        var jobs: Int?

        @Option(help: ArgumentHelp("The memory that costly password tries running at once may use (age scrypt: 256 MiB a try), e.g. 512M or 4G; less than one try's still allows one at a time (default: half the memory available).", valueName: "size"),
                completion: .list(["512M", "1G", "2G", "4G", "8G"]))
        var memory: String?

        @Option(help: ArgumentHelp("The key-derivation work an OpenPGP message may ask of each password (Argon2: passes x memory; iterated S2K: bytes hashed; all its session key packets together), e.g. 64G (default: 12G, about 10 s a password).", valueName: "size"))
        var maxKdfCost: String?

        @Flag(help: "Also open RNCryptor v0 and v1 messages, whose HMAC does not cover their header: their plaintext is not fully authenticated (default: $RWSECRET_ALLOW_LEGACY=1, else refused).")
        var allowLegacy = false

        @Flag(help: "Read each line as ID<TAB>MESSAGE and give the ID with each result.")
        var idColumn = false

        @Flag(help: "Pipeline mode (implies --json): one record per input line, failures as records; exit 0 once every line has its record.")
        var inBand = false

        /// This command's values, `root` the global options given before `decrypt`.
        func values(root: Globals) -> DecryptRun {
            DecryptRun(global: global.plain, rootGlobal: root, files: files, json: json, binary: binary, output: output,
                       keyFile: keyFile, identity: identity, signerKey: signerKey, iterations: iterations, passwordFile: passwordFile,
                       askPassword: askPassword, passwordLabel: passwordLabel, noStore: noStore, passwordFd: passwordFd, jobs: jobs,
                       memory: memory, maxKdfCost: maxKdfCost, allowLegacy: allowLegacy, idColumn: idColumn, inBand: inBand)
        }

        func validate() throws { try values(root: Globals()).validate() }

        func run() throws { try values(root: root.global.plain).run() }
    }
}

/// `decrypt`'s options as plain values, and the run they ask for: what either parser makes
/// (`Decrypt`, ArgumentParser's, through `values`; DecryptArguments, the hand parser, with no
/// ArgumentParser type built at all: its property wrappers cost a one-message run 0.5 M
/// instructions and a scan of every protocol conformance of the binary, issue 36).
/// HandParserTests checks that it has a property for each of `Decrypt`'s.
struct DecryptRun {
    /// The global options given after `decrypt`.
    var global: Globals
    /// Those given before it (the root command's).
    var rootGlobal: Globals
    var files: [String]
    var json: Bool
    var binary: Bool
    var output: String?
    var keyFile: String?
    var identity: [String]
    var signerKey: [String]
    var iterations: Int
    var passwordFile: [String]
    var askPassword: Bool
    var passwordLabel: [String]
    var noStore: Bool
    var passwordFd: [Int32]
    var jobs: Int?
    var memory: String?
    var maxKdfCost: String?
    var allowLegacy: Bool
    var idColumn: Bool
    var inBand: Bool

    func validate() throws {
        if noStore && (global.store != nil || global.vault != nil) {
            throw ValidationError("--no-store cannot be combined with --store or --vault")
        }
        if noStore && !passwordLabel.isEmpty { throw ValidationError("--password-label names stored passwords: it cannot be combined with --no-store") }
        if json && binary { throw ValidationError("--json cannot be combined with --binary") }
        if output != nil && !binary {
            // A whole age, OpenPGP or Ansible Vault file is one message: -o takes it as age -o does.
            if json || inBand || idColumn { throw ValidationError("-o writes one whole message: it cannot be combined with --json, --in-band or --id-column") }
            if files.count > 1 { throw ValidationError("-o writes one whole message: give at most one FILE") }
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let memory, MemoryBudget.parse(memory) == nil { throw ValidationError(MemoryBudget.usage) }
        if let maxKdfCost, MemoryBudget.parse(maxKdfCost) == nil {
            throw ValidationError("--max-kdf-cost must be a size such as 12G or 500M (K, M, G, T: powers of 1024), more than 0")
        }
        if !(1...Encryptor.maximumIterations).contains(iterations) {
            throw ValidationError("--iterations must be between 1 and \(Encryptor.maximumIterations)")
        }
        if binary && (inBand || idColumn) { throw ValidationError("--in-band and --id-column read lines: they cannot be combined with --binary") }
        for fd in passwordFd {
            if fd < 0 { throw ValidationError("--password-fd must be a file descriptor number (0 or more)") }
            if fd == 1 || fd == 2 { throw ValidationError("--password-fd \(fd) is an output, not a descriptor to read passwords from") }
            if fd == 0 && (files.isEmpty || files.contains("-")) {
                throw ValidationError("--password-fd 0 is stdin, which holds the messages here")
            }
        }
    }

    func run() throws {
        // Here, not in validate(): the parser reports an unknown option only after validate() passes.
        if binary && files.count > 1 { throw ValidationError("--binary reads one message: give at most one FILE") }
        // -o without --binary: the one FILE is a whole-file kind (age, OpenPGP, Ansible Vault),
        // opened as --binary opens it; a file of lines is refused before anything is read.
        let binary = self.binary || output != nil
        if output != nil && !self.binary, let file = files.first, file != "-", !Self.holdsWholeFileKind(file) {
            throw ValidationError("-o writes one whole message (an age, OpenPGP or Ansible Vault file, or a raw RNCryptor message with --binary): \(Output.escaped(file)) holds lines; redirect stdout instead")
        }
        let global = try self.global.merged(with: rootGlobal)
        if noStore && (global.store != nil || global.vault != nil) {
            throw ValidationError("--no-store cannot be combined with --store or --vault")
        }
        let jobCount = try JobCount.resolve(option: jobs)  // a bad RWSECRET_JOBS is bad usage (64), checked first
        _ = try LegacyOption.allowed(flag: allowLegacy)  // so is a bad RWSECRET_ALLOW_LEGACY
        // The files the run uses, known before --password-fd's are read and closed: -o never replaces one.
        var runFiles = binary ? RunFiles.of(global: global, keyFile: keyFile, passwordFiles: passwordFile, passwordDescriptors: passwordFd) : RunFiles()
        if binary { for path in identity where path != "-" { runFiles.add("an identity file", path: path) } }
        if binary { for path in signerKey where path != "-" { runFiles.add("a signer key file", path: path) } }
        // What was given for the run, checked before anything is read or opened.
        var runOnly: [ChainPassword] = []
        for path in passwordFile { runOnly += try RunPasswords.load(file: path) }
        for fd in passwordFd { runOnly += try RunPasswords.load(descriptor: fd) }
        if askPassword { runOnly.append(ChainPassword(name: "prompt", secret: try Terminal.readRunPassword())) }
        if let fromEnvironment = try RunPasswords.fromEnvironment() { runOnly.append(fromEnvironment) }
        let keys = try keyFile.map(KeyFile.load)
        let identityFiles = try KindDecryption.loadIdentities(identity)
        let signerKeys = try SignerKeys.load(signerKey)

        let opened = OpenedStore()
        let legacy: LegacyFormats = try LegacyOption.allowed(flag: allowLegacy) ? .allowed : .refused
        let client = try PasswordClient(runOnly: runOnly, keys: keys, iterations: iterations, legacyFormats: legacy) { [runOnly, identityFiles] in
            if noStore {
                global.verboseLine("store: none (--no-store)")
                return nil
            }
            let store = try global.openStore(runPasswordsGiven: !runOnly.isEmpty || keys != nil || !identityFiles.isEmpty)
            opened.store = store
            return store
        }
        if !passwordLabel.isEmpty { client.onlyStored(labels: passwordLabel) }
        if inBand { try checkSomethingToTry(client, opened: opened) }
        let mode = RecordWriter.Mode(json: json || inBand, inBand: inBand, idColumn: idColumn)
        // On a terminal: asked once for another password when the chain fails.
        let asker = AskWhenNothingOpens(inBand: inBand, alreadyAsked: askPassword)
        let session = DecryptSession(client: client, json: mode.json, global: global,
                                     jobs: jobCount.jobs, jobsReason: jobCount.reason, mode: mode,
                                     kdfWork: maxKdfCost.flatMap(MemoryBudget.parse) ?? Decryption.Options.defaultKDFWork, asker: asker)
        session.memoryOption = memory
        session.emptyChainHint = { [noStore] in EmptyChainHint.text(global: global, noStore: noStore) }
        // Read when the first age file needs them, from the store the chain has opened by then
        // (KindDecryption asks the chain for its passwords first); none with --no-store.
        let identities = IdentityChain(files: identityFiles) { [noStore] in
            noStore ? [] : try IdentityChain.stored(in: opened.store, global: global)
        }
        identities.signerKeys = signerKeys
        let kinds = KindDecryption(session: session, identities: identities)
        // --in-band and --id-column promise a record per input line: their inputs are lines only.
        if !inBand && !idColumn { session.otherKinds = { input, index, rows in try kinds.work(of: input, index: index, rows: &rows) } }
        // The closure holds `kinds`, which holds the session: break the cycle, so that the
        // session and its client (the passwords, wiped when released) go before exit.
        defer { session.otherKinds = nil }
        session.emptyChainStatus = noStore ? .failure : .unavailable
        let status = binary
            ? try { var binaryRun = BinaryDecryption(session: session, output: output, runFiles: runFiles, identities: identities)
                    binaryRun.linesRefused = !self.binary
                    return try binaryRun.run(file: files.first ?? "-") }()
            : try session.run(files: files.isEmpty ? ["-"] : files)
        global.verboseLine("key derivations: \(Decryption.keyDerivations)")
        #if DEBUG
        if getenv("RWS_TEST_KDF_DELAY_US") != nil {
            let seconds = KeyDerivation.derivationsInFlightForTesting.map { String(Int(($0 * 1000).rounded())) }
            global.verboseLine("test: milliseconds with 0, 1, 2, ... key derivations in flight: \(seconds.joined(separator: " "))")
        }
        #endif
        throw CommandFailure.silent(status)
    }

    /// Whether the regular file `path` begins like a message of another kind (age, OpenPGP,
    /// Ansible Vault); a file that cannot be read is left to the run, which reports it.
    static func holdsWholeFileKind(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return true }
        // As much as the library looks at to tell a kind (a kilobyte).
        var prefix = [UInt8](repeating: 0, count: 1024)
        let n = prefix.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, 0) }
        guard n > 0, let kind = MessageOpener.kind(of: prefix[..<n]) else { return false }
        return kind != .rncryptor
    }

    /// `--in-band` decides before reading any input that the run can do its work: the
    /// store opens (69 otherwise) and there is a password or a key to try (69 when there is
    /// neither), so that an engine sees a failed task, not a stream of identical failures.
    private func checkSomethingToTry(_ client: PasswordClient, opened: OpenedStore) throws {
        let something: Bool
        do { something = try client.hasSomethingToTry() } catch let error as StoreError { throw CommandFailure(error) }
        guard !something else { return }
        if let store = opened.store {
            throw CommandFailure(.unavailable, """
                nothing to try: the \(store.kind.rawValue) store (\(store.location)) holds no password, none was given \
                for the run and there is no --key-file (add one with `rwsecret password add`, or give --password-file \
                or --password-fd)
                """)
        }
        throw CommandFailure(.unavailable, """
            nothing to try: --no-store, no password given for the run and no --key-file (give --password-file, \
            --password-fd, --ask-password, RWSECRET_PASSWORD or --key-file)
            """)
    }
}

/// The store the chain's client opened, kept to name it in messages.
private final class OpenedStore: Sendable {
    private let state = Mutex<(any PasswordStore)?>(nil)
    var store: (any PasswordStore)? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
