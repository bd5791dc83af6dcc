import ArgumentParser
@_spi(Testing) import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

@main
struct RWSecret: ParsableCommand {
    /// The whole command tree; on the hot path (`HotPath`), a tree of `decrypt` alone.
    static var configuration: CommandConfiguration { HotPath.active ? HotPath.configuration : fullConfiguration }

    static let fullConfiguration = CommandConfiguration(
        commandName: "rwsecret",
        abstract: "Open age, OpenPGP, Ansible Vault and RNCryptor messages with the passwords and keys you keep.",
        discussion: """
            decrypt opens age files (a password, an identity or an SSH key), OpenPGP messages \
            to a password (gpg -c), Ansible Vault files and YAML !vault values, and RNCryptor \
            messages (one base64 message per line); encrypt --to writes age files to age1... \
            recipients and SSH keys (identity new makes your own).

            Passwords live in the Secret Service keyring (--store keyring) or in an \
            encrypted vault file (--store file); `auto` picks the keyring when one is \
            running. No option ever takes a password on the command line.

            Environment: RWSECRET_STORE, RWSECRET_VAULT, RWSECRET_VAULT_PASSPHRASE, \
            RWSECRET_PASSWORD, RWSECRET_JOBS, RWSECRET_PROGRESS_DELAY (see the man page \
            rwsecret(1), or `rwsecret help decrypt`).
            """,
        version: RWSecretKit.version,
        subcommands: [Decrypt.self, Encrypt.self, Password.self, Identity.self, Vault.self, Status.self] + ExtraCommand.all
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
        // RWSecretKit is this process's only user of OpenSSL: no legacy name table (0.4 ms of every run).
        OpenSSLStart.withoutLegacyNames()
        ToolStart.applyHooks()
        SecretEnvironment.take()
        let arguments = Array(CommandLine.arguments.dropFirst())
        ToolStart.warmUp(for: arguments)
        do {
            if let run = DecryptArguments.parse(arguments) {
                // `decrypt` parsed by hand (DecryptArguments), no ArgumentParser type built. Most such runs
                // never get here: the front runs them (Sources/RWSecretFront); it hands on those whose
                // usage() fails, which the run below throws again for ArgumentParser to word.
                try run.run()
            } else {
                if let failure = CommandWords.check(arguments) { throw failure }
                var command = try HotPath.parse(arguments) ?? parseAsRoot()
                try command.run()
            }
            ToolExit.succeeded()
        } catch let failure as CommandFailure {
            ToolExit.failed(failure)
        } catch {
            Output.standardOutput.flush()
            // Bad usage found once parsed (UsageError) is worded by ArgumentParser, usage lines and all.
            let error = (error as? UsageError)?.validationError ?? error
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
}

/// `rwsecret decrypt …` that the hand parser leaves: parsed against a tree of `decrypt` alone, with no check
/// for `--generate-completion-script` (ArgumentParser skips it for a command with a super
/// command name). Every conformance lookup the parser makes scans every conformance record
/// of the binary, so each command and option made every run dearer (issue 36: 14.4 M
/// instructions of 19.9 M outside the KDF were the parse; the completion check alone 5.4 M).
/// Anything but a successful parse (help, `--version`, completion requests, any error) is
/// parsed again by the whole tree, which words it as always. The plain vectors of most runs are
/// parsed by hand (DecryptArguments) and run by the front, which has no ArgumentParser at all.
enum HotPath {
    nonisolated(unsafe) static var active = false

    static let configuration: CommandConfiguration = {
        var configuration = RWSecret.fullConfiguration
        configuration.subcommands = [RWSecret.Decrypt.self]
        configuration._superCommandName = ""
        return configuration
    }()

    /// The parsed command, or nil when `arguments` are not for the hot path or do not parse there.
    static func parse(_ arguments: [String]) -> ParsableCommand? {
        guard arguments.first == "decrypt", !arguments.contains(where: { argument in
            ["-h", "--help", "-help", "--version", "help"].contains(argument) || argument.hasPrefix("--generate-completion")
                || argument.hasPrefix("--experimental") || argument.hasPrefix("---")
        }) else { return nil }
        active = true
        defer { active = false }
        return try? RWSecret.parseAsRoot(arguments)
    }
}
