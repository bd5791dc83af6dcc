@_spi(Testing) import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// How a run of the tool begins, in either of its programs (the `decrypt` front,
/// Sources/RWSecretFront, and the whole tool): the same hooks and warm-ups, in the same order.
enum ToolStart {
    /// The measurement and test hooks, from the environment (the library reads none).
    static func applyHooks() {
        // For measurements: force a PBKDF2 code path.
        if let value = getenv("RWSECRET_KDF") { KeyDerivation.use(KeyDerivation.Implementation(rawValue: String(cString: value))) }
        #if DEBUG
        // The scale model (ScaleModelTests): every key derivation also sleeps this long. Debug builds
        // only; RWS_, not RWSECRET_: a test hook, not a setting of the tool (those are documented).
        if let value = getenv("RWS_TEST_KDF_DELAY_US"), let delay = Int(String(cString: value)), delay >= 0 {
            KeyDerivation.delayForTesting(microseconds: delay)
        }
        #endif
    }

    /// decrypt may need the keyring: load libsecret and ask the bus while the arguments are
    /// parsed (nothing reaches the Secret Service until a message needs a password), and do
    /// OpenSSL's set-up (0.2 M instructions) on another thread meanwhile. A run that opens no
    /// store (--no-store; encrypt) or has one job starts no thread at all: its set-up happens
    /// when first needed (issue 36: that thread cost a one-message run a clone3, its stack and
    /// malloc arena, about 20 page faults, for less than it overlapped).
    static func warmUp(for arguments: [String]) {
        guard let keyring = KeyringWarmUp.selector(for: arguments), !JobCount.isOneBeforeParsing(arguments) else { return }
        RNCryptor.prepareInBackground()
        keyring.prepareKeyringInBackground()
    }
}

/// How a run of the tool ends when its command returned or failed with a `CommandFailure`.
enum ToolExit {
    /// The command did its work: 0, unless what it wrote to stdout was lost.
    static func succeeded() -> Never {
        Output.standardOutput.flush()
        ProcessHardening.exit(standardOutputStatus(.success).rawValue)
    }

    /// The command stopped: its one line (none when already reported) and its status.
    static func failed(_ failure: CommandFailure) -> Never {
        Output.standardOutput.flush()
        if !failure.message.isEmpty { Output.standardError.line("rwsecret: \(failure.message)") }
        ProcessHardening.exit(standardOutputStatus(failure.status).rawValue)
    }

    /// A run that would end with `status` 0 although what it wrote to stdout was lost (stdout
    /// closed at start, `/dev/full`, an I/O error) ends with 74 and one line instead: every
    /// command that writes to stdout, as `decrypt` does. A reader that went away is not this
    /// (the process ends by SIGPIPE, as filters do).
    static func standardOutputStatus(_ status: ExitStatus) -> ExitStatus {
        let out = Output.standardOutput
        guard status == .success, out.failed, !out.brokenPipe else { return status }
        Output.standardError.line("rwsecret: stdout: \(Errno(rawValue: out.errorCode))")
        return .ioError
    }
}
