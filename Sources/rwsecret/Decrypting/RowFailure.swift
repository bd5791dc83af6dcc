import RWSecretKit

/// What became of a row's message: its plaintext, or why it gave none. A `Result` of its own
/// rather than `Result<Decrypted, RowFailure>`: copying the generic one asked the runtime for
/// its metadata, which checks `RowFailure: Error` by scanning every conformance record of the
/// binary, 0.18 M instructions of a one-message run (issue 36).
enum RowResult {
    case success(Decrypted)
    case failure(RowFailure)

    /// The plaintext, or the failure thrown (as `Result.get()`).
    func get() throws(RowFailure) -> Decrypted {
        switch self {
        case .success(let decrypted): decrypted
        case .failure(let failure): throw failure
        }
    }

    /// The library's outcome of a message, its failure as the tool words it.
    init(_ result: Result<Decrypted, DecryptionFailure>) {
        switch result {
        case .success(let decrypted): self = .success(decrypted)
        case .failure(let failure): self = .failure(.message(failure))
        }
    }
}

/// Why a row gave no message.
enum RowFailure: Error, CustomStringConvertible {
    /// The message itself (the spec's reasons).
    case message(DecryptionFailure)
    /// `--id-column` and a row without a TAB.
    case missingID
    /// A message of another kind (age, Ansible Vault) that did not open: the reason, in words.
    case otherKind(String)
    /// The line is longer than rwsecret reads (1 MiB).
    case lineTooLong

    /// The library's reason a row is no message (`MessageRows`), as the tool words it.
    init(_ failure: MessageRows.Failure) {
        if let reason = failure.decryptionFailure {
            self = .message(reason)
        } else {
            self = failure.code == .missingID ? .missingID : .lineTooLong
        }
    }

    var description: String {
        switch self {
        case .message(let failure): failure.words
        case .missingID: "no ID (expected ID<TAB>MESSAGE)"
        case .otherKind(let reason): reason
        case .lineTooLong: "line too long"
        }
    }
}

/// Other formats that people mistake for RNCryptor, as the library recognises them (`MessageRows.Hint`), in the tool's words.
enum FormatHint: Hashable {
    /// OpenSSL `enc` output: `Salted__`, an 8-byte salt, the ciphertext.
    case openSSL
    /// The RNCryptor v4 draft: `RNC`, then version 4.
    case rncryptorV4
    /// A line over the line limit: the limit, and what to do.
    case lineTooLong

    /// The library's hint (`MessageRows`); nil for one this version does not word.
    init?(_ hint: MessageRows.Hint?) {
        switch hint {
        case .openSSL?: self = .openSSL
        case .rncryptorV4?: self = .rncryptorV4
        case .lineTooLong?: self = .lineTooLong
        default: return nil
        }
    }

    /// What a raw (not base64) input of this format is, after "not a secret message (binary data); ".
    var rawDescription: String {
        switch self {
        case .openSSL: "it starts with \"Salted__\": OpenSSL enc made it, not RNCryptor (open it with openssl enc -d)"
        case .rncryptorV4: "it starts with \"RNC\" and version 4: the RNCryptor v4 draft, which rwsecret does not read"
        case .lineTooLong: "a line over 1 MiB (1,048,576 bytes)"
        }
    }

    /// The run-level line (after `rwsecret: FILE: `).
    var description: String {
        switch self {
        case .openSSL: "hint: messages starting with \"Salted__\" were made by OpenSSL enc, not RNCryptor (open them with openssl enc -d)"
        case .rncryptorV4: "hint: messages starting with \"RNC\" and version 4 use the RNCryptor v4 draft, which rwsecret does not read"
        case .lineTooLong: "hint: a line over 1 MiB (1,048,576 bytes) is not read as a message; a message that large is made with `encrypt --binary` and opened with `decrypt --binary`"
        }
    }
}
