import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Loads and checks the passwords given for one run: password files, inherited
/// descriptors (`--password-fd`), the prompt, `RWSECRET_PASSWORD`.
///
/// Each passes the default validators; a rejection stops the run with 65 and a
/// missing password file with 66, before anything is decrypted. The secret is
/// never printed: failures name the file and line.
enum RunPasswords {
    static let environmentVariable = "RWSECRET_PASSWORD"

    /// The passwords of a password file, in order.
    static func load(file path: String) throws -> [ChainPassword] {
        try loadSecrets(file: path).map { ChainPassword(name: $0.name, secret: $0.secret) }
    }

    /// The passwords of a password file, in order, as names and secrets (for `encrypt`, which
    /// hands its one secret to the library itself: a `ChainPassword` never gives its secret back).
    static func loadSecrets(file path: String) throws -> [(name: String, secret: SecretBytes)] {
        var bytes = try readSmallFile(path, what: "password file")
        defer { SecretBytes.cleanse(&bytes) }
        warnIfLoose(path)
        return try parseSecrets(bytes, source: path)
    }

    /// The warning a loose `--identity` file gets (`IdentityFiles.warnIfLoose`), for a password
    /// file that its group or others may read or write; the file is used all the same.
    static func warnIfLoose(_ path: String) {
        var info = stat()
        guard path != "-", stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_mode & 0o077 != 0 else { return }
        let mode = String(info.st_mode & 0o777, radix: 8)
        Output.standardError.line("rwsecret: warning: \(Output.escaped(path)): password file with mode 0\(mode) that others can access: chmod 600 it")
    }

    /// The passwords a driver writes into descriptor `fd` (read to its end, then closed).
    ///
    /// Made for workers of engines such as Spark: the parent writes the passwords into a
    /// pipe, so they are never on a command line, in the environment or in a file.
    static func load(descriptor fd: Int32) throws -> [ChainPassword] {
        let name = "--password-fd \(fd)"
        var info = stat()
        guard !StandardStreams.wasClosed(fd), fstat(fd, &info) == 0 else {
            if StandardStreams.wasClosed(fd) { errno = EBADF }
            throw CommandFailure(.noInput, "\(name): \(Errno(rawValue: errno)) (the descriptor is not open)")
        }
        guard (info.st_mode & S_IFMT) != S_IFDIR else { throw CommandFailure(.noInput, "\(name): \(Errno(rawValue: EISDIR))") }
        var bytes = try readToEnd(limit: 16 << 20, tooLarge: CommandFailure(.dataError, "\(name): more than 16 MiB of passwords")) { buffer, count throws(CommandFailure) in
            do throws(Errno) { return try retryingEINTR { read(fd, buffer, count) } } catch {
                throw CommandFailure(error.meansMissingInput ? .noInput : .ioError, "\(name): \(error)")
            }
        }
        defer { SecretBytes.cleanse(&bytes) }
        close(fd)
        return try parse(bytes, source: "fd:\(fd)")
    }

    /// One password per line (LF or CRLF, empty lines skipped), each `SECRET` or `LABEL<TAB>SECRET`.
    ///
    /// An unlabelled password is named `SOURCE:LINE` in output; a labelled one by its label,
    /// which follows the store's rules (1–64 characters, no control characters) and may be
    /// given once per run. A secret cannot hold a TAB (the validators refuse it), so the
    /// first TAB always ends the label.
    static func parse(_ bytes: [UInt8], source: String) throws -> [ChainPassword] {
        try parseSecrets(bytes, source: source).map { ChainPassword(name: $0.name, secret: $0.secret) }
    }

    /// `parse(_:source:)`'s passwords as names and secrets.
    static func parseSecrets(_ bytes: [UInt8], source: String) throws -> [(name: String, secret: SecretBytes)] {
        var passwords: [(name: String, secret: SecretBytes)] = []
        var labels: Set<String> = []
        var failed = false
        var lineNumber = 0
        for var line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { continue }
            let position = "\(source):\(lineNumber)"
            var name = position
            if let tab = line.firstIndex(of: UInt8(ascii: "\t")) {
                let label = String(decoding: line[..<tab], as: UTF8.self)
                line = line[(tab + 1)...]
                do {
                    try PasswordLabel.validate(label)
                    guard labels.insert(label).inserted else {
                        throw StoreError.invalidLabel(label, reason: "the label is given twice for this run")
                    }
                    name = label
                } catch let error as StoreError {
                    Output.standardError.line("rwsecret: \(Output.escaped(position)): \(error.description)")
                    failed = true
                    continue
                }
            }
            let secret = SecretBytes(line)
            if !passes(secret, name: position) { failed = true; continue }
            passwords.append((name, secret))
        }
        if failed { throw CommandFailure.silent(.dataError) }
        return passwords
    }

    /// The password in `RWSECRET_PASSWORD`, if set.
    static func fromEnvironment() throws -> ChainPassword? {
        try secretFromEnvironment().map { ChainPassword(name: environmentVariable, secret: $0) }
    }

    /// The secret in `RWSECRET_PASSWORD`, if set, checked (for `encrypt`).
    static func secretFromEnvironment() throws -> SecretBytes? {
        guard let secret = SecretEnvironment.password else { return nil }
        try check(secret, name: environmentVariable)
        return secret
    }

    /// Runs the default validators; every failure is printed, then the run stops with 65.
    static func check(_ secret: SecretBytes, name: String) throws {
        guard passes(secret, name: name) else { throw CommandFailure.silent(.dataError) }
    }

    /// Runs the default validators and prints every failure as `rwsecret: NAME: REASON`.
    private static func passes(_ secret: SecretBytes, name: String) -> Bool {
        let failures = PasswordValidator.standard.validate(secret)
        for failure in failures { Output.standardError.line("rwsecret: \(Output.escaped(name)): \(failure.words)") }
        return failures.isEmpty
    }
}
