import ArgumentParser
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

@main
struct RWSecret: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rwsecret",
        abstract: "Decrypt RNCryptor messages with the passwords kept in your keyring.",
        discussion: """
            Passwords live in the Secret Service keyring (--store keyring) or in an \
            encrypted vault file (--store file); `auto` picks the keyring when one is \
            running. No option ever takes a password on the command line.

            Environment: RWSECRET_STORE, RWSECRET_VAULT, RWSECRET_VAULT_PASSPHRASE, \
            RWSECRET_PASSWORD, RWSECRET_JOBS, RWSECRET_PROGRESS_DELAY (see the man page \
            rwsecret(1), or `rwsecret help decrypt`).
            """,
        version: RWSecretKit.version,
        subcommands: [Decrypt.self, Encrypt.self, Password.self, Identity.self, Vault.self, Status.self]
    )

    @OptionGroup var global: GlobalOptions

    /// `rwsecret` alone is bad usage: usage on stderr, exit 64.
    func run() throws {
        Output.standardError.write(Self.helpMessage())
        throw ExitCode(ExitStatus.usage.rawValue)
    }

    /// Parses, runs, and maps every error to one `rwsecret: ` line and the spec's exit status.
    static func main() {
        ProcessHardening.apply()
        // For measurements: force a PBKDF2 code path (the library reads no environment).
        if let value = getenv("RWSECRET_KDF") { KeyDerivation.use(KeyDerivation.Implementation(rawValue: String(cString: value))) }
        #if DEBUG
        // The scale model (ScaleModelTests): every key derivation also sleeps this long. Debug builds
        // only; RWS_, not RWSECRET_: a test hook, not a setting of the tool (those are documented).
        if let value = getenv("RWS_TEST_KDF_DELAY_US"), let delay = Int(String(cString: value)), delay >= 0 {
            KeyDerivation.delayForTesting(microseconds: delay)
        }
        #endif
        SecretEnvironment.take()
        // decrypt and encrypt will need OpenSSL's set-up (small since no provider fetch is made,
        // but the library's initialisation still reads /proc and the CPU's features): let the other core do it
        // while the arguments are parsed. No other command touches EVP. A run of one job
        // uses one thread: there, the set-up happens when first needed.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains(where: { $0 == "decrypt" || $0 == "encrypt" }) && !JobCount.isOneBeforeParsing(arguments) {
            Crypto.prepareInBackground()
            // decrypt may need the keyring: load libsecret and ask the bus while the arguments
            // are parsed (nothing reaches the Secret Service until a message needs a password).
            KeyringWarmUp.selector(for: arguments)?.prepareKeyringInBackground()
        }
        do {
            if let failure = CommandWords.check(arguments) { throw failure }
            var command = try parseAsRoot()
            try command.run()
            Output.standardOutput.flush()
            ProcessHardening.exit(Self.standardOutputStatus(.success).rawValue)
        } catch let failure as CommandFailure {
            Output.standardOutput.flush()
            if !failure.message.isEmpty { Output.standardError.line("rwsecret: \(failure.message)") }
            ProcessHardening.exit(Self.standardOutputStatus(failure.status).rawValue)
        } catch {
            Output.standardOutput.flush()
            let code = exitCode(for: error)
            if code == ExitCode.success || code.rawValue == ExitStatus.usage.rawValue && !(error is ExitCode) {
                // Help, version, and argument-parser usage errors print as the parser formats them.
                let message = fullMessage(for: error)
                if code == .success {
                    if !message.isEmpty { Output.standardOutput.line(message); Output.standardOutput.flush() }
                } else {
                    let trimmed = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
                    Output.standardError.line("rwsecret: " + trimmed)
                }
            }
            ProcessHardening.exit(code == .success ? 0 : (code.rawValue == 1 ? ExitStatus.usage.rawValue : code.rawValue))
        }
    }

    /// A run that would end with `status` 0 although what it wrote to stdout was lost (stdout
    /// closed at start, `/dev/full`, an I/O error) ends with 74 and one line instead: every
    /// command that writes to stdout, as `decrypt` does. A reader that went away is not this
    /// (the process ends by SIGPIPE, as filters do).
    static func standardOutputStatus(_ status: ExitStatus) -> ExitStatus {
        let out = Output.standardOutput
        guard status == .success, out.failed, !out.brokenPipe else { return status }
        Output.standardError.line("rwsecret: stdout: \(SystemError(code: out.errorCode))")
        return .ioError
    }
}
