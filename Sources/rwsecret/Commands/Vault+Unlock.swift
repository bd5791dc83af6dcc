import ArgumentParser
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

extension RWSecret.Vault {
    /// `rwsecret vault unlock [--for DURATION]`: like `ssh-add -t`, the passphrase is kept in
    /// the kernel's session keyring (no daemon) so that later commands of this login session
    /// need neither RWSECRET_VAULT_PASSPHRASE nor the prompt; in the user keyring when there
    /// is no login session keyring (see `SessionKeyring`).
    struct Unlock: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unlock",
            abstract: "Keep the vault passphrase in the session keyring (default 15 minutes).",
            discussion: """
                The passphrase comes from RWSECRET_VAULT_PASSPHRASE or is asked on the terminal, \
                and is checked against the vault first. It is kept in the kernel's session keyring \
                (keyctl), found by processes of this session and readable by this user's only, and \
                forgotten when the duration ends, at `rwsecret vault lock`, or when the session ends. \
                Without a login session keyring (cron, a tmux started from a non-login shell) it is \
                kept in the user keyring, where every process of this user finds it, and says so.
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var group: RWSecret.Vault

        @Option(name: .customLong("for"), help: ArgumentHelp(
            "How long to keep it: seconds, or a duration such as 90s, 15m, 1h30m, 2d (default 15m).", valueName: "duration"))
        var duration: VaultDuration = VaultDuration(seconds: Int64(SessionKeyring.defaultLifetime.components.seconds))

        /// The user's name (else the UID), for the line that says who can read the passphrase.
        static var userName: String {
            if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
            return String(geteuid())
        }

        func run() throws {
            let global = try group.globals(self.global)
            // Always asked anew: what is held may be the very thing to replace.
            let (vault, passphrase) = try global.vaultStore(usesSessionKeyring: false)
            do {
                guard vault.exists else { throw StoreError.noVault(path: vault.location) }
                try vault.open()
                guard let given = passphrase.lastGiven?.passphrase else { throw StoreError.noVault(path: vault.location) }
                let kept = try SessionKeyring.store(given, forVault: vault.location, lifetime: .seconds(duration.seconds))
                if !global.quiet {
                    let until = "until \(VaultTime.iso8601(kept.expiry)) (\(duration))"
                    let lock = "`rwsecret vault lock` forgets it"
                    switch kept.place {
                    case .session:
                        Output.standardError.line(
                            "rwsecret: the vault passphrase is kept in the session keyring \(until), readable by processes of user \(Self.userName) only; \(lock)")
                    case .user:
                        Output.standardError.line("""
                            rwsecret: there is no login session keyring here (cron, a tmux started from a non-login shell…): \
                            the vault passphrase is kept in the user keyring \(until), where every process of user \(Self.userName) finds it; \(lock)
                            """)
                    }
                }
            } catch let error as StoreError {
                throw CommandFailure(error)
            }
        }
    }
}

/// A duration for `--for`: seconds, or numbers with units s, m, h, d (`1h30m`).
struct VaultDuration: ExpressibleByArgument, CustomStringConvertible {
    let seconds: Int64

    init(seconds: Int64) { self.seconds = seconds }

    /// The longest the kernel's timeout can hold (an unsigned 32-bit count of seconds).
    static let maximum: Int64 = Int64(UInt32.max)

    init?(argument: String) {
        var total: Int64 = 0
        var number: Int64?
        for character in argument {
            if let digit = character.wholeNumberValue, character.isASCII {
                let (times, overflow1) = (number ?? 0).multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int64(digit))
                guard !overflow1, !overflow2 else { return nil }
                number = sum
                continue
            }
            let unit: Int64
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86400
            default: return nil
            }
            guard let value = number else { return nil }
            let (part, overflow) = value.multipliedReportingOverflow(by: unit)
            guard !overflow else { return nil }
            total += part
            number = nil
            guard total <= Self.maximum else { return nil }
        }
        if let number { total += number }
        guard !argument.isEmpty, total > 0, total <= Self.maximum else { return nil }
        seconds = total
    }

    var description: String {
        var rest = seconds
        var parts: [String] = []
        for (unit, name) in [(Int64(86400), "d"), (3600, "h"), (60, "min"), (1, "s")] where rest >= unit {
            parts.append("\(rest / unit) \(name)")
            rest %= unit
        }
        return parts.joined(separator: " ")
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
