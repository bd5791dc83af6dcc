@_spi(Testing) import RWSecretKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

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
            throw UsageError("--no-store cannot be combined with --store or --vault")
        }
        if noStore && !passwordLabel.isEmpty { throw UsageError("--password-label names stored passwords: it cannot be combined with --no-store") }
        if json && binary { throw UsageError("--json cannot be combined with --binary") }
        if output != nil && !binary {
            // A whole age, OpenPGP or Ansible Vault file is one message: -o takes it as age -o does.
            if json || inBand || idColumn { throw UsageError("-o writes one whole message: it cannot be combined with --json, --in-band or --id-column") }
            if files.count > 1 { throw UsageError("-o writes one whole message: give at most one FILE") }
        }
        if let jobs, jobs < 1 { throw UsageError("--jobs must be at least 1") }
        if let memory, MemoryBudget.parse(memory) == nil { throw UsageError(MemoryBudget.usage) }
        if let maxKdfCost, MemoryBudget.parse(maxKdfCost) == nil {
            throw UsageError("--max-kdf-cost must be a size such as 12G or 500M (K, M, G, T: powers of 1024), more than 0")
        }
        if !(1...Encryptor.maximumIterations).contains(iterations) {
            throw UsageError("--iterations must be between 1 and \(Encryptor.maximumIterations)")
        }
        if binary && (inBand || idColumn) { throw UsageError("--in-band and --id-column read lines: they cannot be combined with --binary") }
        for fd in passwordFd {
            if fd < 0 { throw UsageError("--password-fd must be a file descriptor number (0 or more)") }
            if fd == 1 || fd == 2 { throw UsageError("--password-fd \(fd) is an output, not a descriptor to read passwords from") }
            if fd == 0 && (files.isEmpty || files.contains("-")) {
                throw UsageError("--password-fd 0 is stdin, which holds the messages here")
            }
        }
    }

    /// What `run` goes on with once the usage is known to be good.
    struct Usage {
        /// The global options, those after `decrypt` completed by those before it.
        let global: Globals
        /// Whether the one FILE is opened whole (`--binary`, or `-o`).
        let binary: Bool
    }

    /// The bad usage found only once the options are parsed (`UsageError`), before anything
    /// is read or opened: nothing has been done when it throws.
    func usage() throws -> Usage {
        // Here, not in validate(): the parser reports an unknown option only after validate() passes.
        if binary && files.count > 1 { throw UsageError("--binary reads one message: give at most one FILE") }
        // -o without --binary: the one FILE is a whole-file kind (age, OpenPGP, Ansible Vault),
        // opened as --binary opens it; a file of lines is refused before anything is read.
        let binary = self.binary || output != nil
        if output != nil && !self.binary, let file = files.first, file != "-", !Self.holdsWholeFileKind(file) {
            throw UsageError("-o writes one whole message (an age, OpenPGP or Ansible Vault file, or a raw RNCryptor message with --binary): \(Output.escaped(file)) holds lines; redirect stdout instead")
        }
        let global = try self.global.merged(with: rootGlobal)
        if noStore && (global.store != nil || global.vault != nil) {
            throw UsageError("--no-store cannot be combined with --store or --vault")
        }
        return Usage(global: global, binary: binary)
    }

    func run() throws { try run(usage()) }

    /// The run, once `usage()` has passed.
    func run(_ usage: Usage) throws {
        let global = usage.global, binary = usage.binary
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
