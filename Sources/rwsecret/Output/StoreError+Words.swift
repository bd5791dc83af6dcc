import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Store errors in the tool's words (with the options and variables to use) and
/// their exit statuses: the library gives facts, the tool says what to do.
extension StoreError {
    /// The spec's exit status for this error.
    var exitStatus: ExitStatus {
        switch reason {
        case .unavailable, .locked, .wrongPassphrase, .noPassphrase, .noVault, .vaultNotARegularFile,
             .vaultTooLarge, .vaultDamaged, .unsafeLockFile, .untrustedLink, .sessionKeyring:
            .unavailable
        case .labelExists, .labelsExist, .unknownLabels, .invalidLabel, .passphraseRejected, .passwordRejected:
            .dataError
        case .io:
            .ioError
        case .custom(let code, _, _):
            // A custom store's error (the library's API; the tool's stores never throw one).
            [.labelExists, .unknownLabel, .invalidLabel, .rejected].contains(code) ? .dataError : code == .system ? .ioError : .unavailable
        }
    }

    /// The message, one `rwsecret: ` line per failure (the first without the prefix).
    var words: String {
        let vaultAdvice = "point --vault (or RWSECRET_VAULT) at the vault file"
        switch reason {
        case .passphraseRejected(let failures):
            return failures.map { "vault passphrase: \($0.words)" }.joined(separator: "\nrwsecret: ")
        case .passwordRejected(let label, let failures):
            return failures.map { (label.map { "'\(Output.escaped($0))': " } ?? "") + $0.words }.joined(separator: "\nrwsecret: ")
        // Labels are named, escaped (a label can hold characters that reorder or hide text).
        case .invalidLabel(let label, let reason):
            return "bad label '\(Output.escaped(label))': \(reason)"
        case .labelExists(let label):
            return "a password labelled '\(Output.escaped(label))' already exists"
        case .labelsExist(let labels):
            return (labels.count == 1 ? "a password labelled " : "passwords labelled ")
                + labels.map { "'\(Output.escaped($0))'" }.joined(separator: ", ") + (labels.count == 1 ? " already exists" : " already exist")
        case .unknownLabels(let labels):
            return "no password labelled " + labels.map { "'\(Output.escaped($0))'" }.joined(separator: ", ")
        case .wrongPassphrase:
            return "\(description); give the right one in RWSECRET_VAULT_PASSPHRASE or at the prompt"
        case .noPassphrase(let path, _):
            return "\(description); set RWSECRET_VAULT_PASSPHRASE, or run `rwsecret vault unlock --vault \(path)` on a terminal of this session first"
        case .noVault:
            return "\(description) (`rwsecret password add` creates it)"
        case .vaultNotARegularFile, .vaultTooLarge:
            return "\(description); \(vaultAdvice)"
        case .vaultDamaged:
            return "\(description); restore it from a backup, or point --vault elsewhere"
        case .unsafeLockFile, .untrustedLink:
            return "\(description); remove it if you did not put it there"
        case .sessionKeyring(_, let code) where code == ENOSYS || code == EPERM:
            return "\(description); use RWSECRET_VAULT_PASSPHRASE or the prompt instead"
        case .unavailable, .locked:
            // The library says the vault is the alternative; the tool says how to choose it.
            return description.hasSuffix(StoreError.vaultAlternative) ? description + ": --store file" : description
        default:
            return description
        }
    }
}
