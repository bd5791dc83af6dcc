import RWSecretKit

/// Loads and checks the passwords given for one run: password files, the prompt, `RWSECRET_PASSWORD`.
///
/// Each passes the default validators; a rejection stops the run with 65 and a
/// missing password file with 66, before anything is decrypted. The secret is
/// never printed: failures name the file and line.
enum RunPasswords {
    static let environmentVariable = "RWSECRET_PASSWORD"

    /// The passwords of `files` (one per line, LF or CRLF, empty lines skipped), in order.
    static func load(file path: String) throws -> [ChainPassword] {
        let bytes = try readSmallFile(path, what: "password file")
        var passwords: [ChainPassword] = []
        var lineNumber = 0
        for var line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { continue }
            let secret = SecretBytes(line)
            try check(secret, name: "\(path):\(lineNumber)")
            passwords.append(ChainPassword(name: "\(path):\(lineNumber)", secret: secret))
        }
        var wipe = bytes
        Crypto.cleanse(&wipe)
        return passwords
    }

    /// The password in `RWSECRET_PASSWORD`, if set.
    static func fromEnvironment() throws -> ChainPassword? {
        guard let secret = SecretEnvironment.password else { return nil }
        try check(secret, name: environmentVariable)
        return ChainPassword(name: environmentVariable, secret: secret)
    }

    /// Runs the default validators; every failure is printed, then the run stops with 65.
    static func check(_ secret: SecretBytes, name: String) throws {
        let failures = CompositeValidator.runDefault.validate(secret)
        guard !failures.isEmpty else { return }
        for failure in failures { Output.standardError.line("rwsecret: \(Output.escaped(name)): \(failure.description)") }
        throw CommandFailure.silent(.dataError)
    }
}
