import RWSecretKit

/// Decryption outcomes in the tool's words: the library gives facts, the tool names its options.
extension DecryptionFailure {
    /// The reason printed after `FILE:LINE:` and in JSON `error` members (the spec's wording).
    var words: String {
        if code == .needsKey { return "key-based message needs --key-file" }
        if code == .format, let error = formatError { return error.words }
        return description
    }
}

extension RNCryptorError {
    /// The reason as the tool prints it: a refused legacy version names the flag that opens it.
    var words: String {
        guard code == .legacyVersion, let v = version else { return description }
        return "version \(v) message: its HMAC does not cover the header, so its plaintext cannot be fully authenticated (give --allow-legacy to open it anyway)"
    }
}

extension Opener {
    /// What JSON `password` members and `--verbose` call it: the password's chain name,
    /// `identity NAME`, or `key-file`.
    var words: String { name.description }
}

extension ValidationFailure {
    /// The failure as the tool prints it: a broken character class names its option (`--require numeric`).
    var words: String {
        if let requirement = PasswordRequirement.brokenBy(self) {
            return "\(failureDescription) (--require \(requirement.rawValue) allows only \(requirement.wording))"
        }
        return description
    }
}
