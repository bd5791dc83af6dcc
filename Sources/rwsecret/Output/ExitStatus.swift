import RWSecretKit

/// The exit statuses of the spec's table (sysexits.h values).
enum ExitStatus: Int32 {
    case success = 0
    /// At least one message could not be decrypted.
    case failure = 1
    /// Bad usage: nothing is done.
    case usage = 64
    /// Bad data given for the run: nothing is done.
    case dataError = 65
    /// An input, key or password file is missing or unreadable.
    case noInput = 66
    /// The password store is unavailable.
    case unavailable = 69
    /// The output file cannot be created.
    case cannotCreate = 73
    /// An I/O error while reading or writing.
    case ioError = 74
}

/// An error that stops a command: one `rwsecret: MESSAGE` line and an exit status.
struct CommandFailure: Error {
    let message: String
    let status: ExitStatus

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// A failure that has already been reported (prints nothing more).
    static func silent(_ status: ExitStatus) -> CommandFailure { CommandFailure(status, "") }
}

extension CommandFailure {
    /// The one place store errors become exit statuses (see `StoreError+Words.swift`).
    init(_ error: StoreError) {
        self.init(error.exitStatus, error.words)
    }
}
