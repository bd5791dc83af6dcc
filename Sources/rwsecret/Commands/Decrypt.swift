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

        func validate() throws {
            do { try values(root: Globals()).validate() } catch let failure as UsageError { throw failure.validationError }
        }

        func run() throws { try values(root: root.global.plain).run() }
    }
}

