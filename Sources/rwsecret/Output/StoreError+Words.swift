import RWSecretKit
import SystemPackage

/// Store errors in the tool's words (with the options and variables to use) and
/// their exit statuses: the library gives facts, the tool says what to do.
extension StoreError {
    /// The spec's exit status for this error (a custom store's too: by its code).
    var exitStatus: ExitStatus {
        switch code {
        case .labelExists, .unknownLabel, .invalidLabel, .rejected, .passphraseRejected: .dataError
        case .system: .ioError
        default: .unavailable
        }
    }

    /// The message, one `rwsecret: ` line per failure (the first without the prefix).
    var words: String {
        let vaultAdvice = "point --vault (or RWSECRET_VAULT) at the vault file"
        // Labels are named, escaped (a label can hold characters that reorder or hide text).
        let named = labels.map { "'\(Output.escaped($0))'" }
        switch code {
        case .passphraseRejected:
            return failures.map { "vault passphrase: \($0.words)" }.joined(separator: "\nrwsecret: ")
        case .rejected where !failures.isEmpty:
            return failures.map { (named.first.map { "\($0): " } ?? "") + $0.words }.joined(separator: "\nrwsecret: ")
        case .invalidLabel where !named.isEmpty:
            return "bad label \(named[0]): \(detail ?? "")"
        case .labelExists where !named.isEmpty:
            return (named.count == 1 ? "a password labelled " : "passwords labelled ")
                + named.joined(separator: ", ") + (named.count == 1 ? " already exists" : " already exist")
        case .unknownLabel where !named.isEmpty:
            return "no password labelled " + named.joined(separator: ", ")
        case .wrongPassphrase:
            return "\(description); give the right one in RWSECRET_VAULT_PASSPHRASE or at the prompt"
        case .noPassphrase:
            guard let path else { return description }
            return "\(description); set RWSECRET_VAULT_PASSPHRASE, or run `rwsecret vault unlock --vault \(path)` on a terminal of this session first"
        case .noVault:
            return "\(description) (`rwsecret password add` creates it)"
        case .vaultUnreadable:
            return "\(description); \(vaultAdvice)"
        case .vaultDamaged:
            return "\(description); restore it from a backup, or point --vault elsewhere"
        case .unsafePath:
            return "\(description); remove it if you did not put it there"
        case .sessionKeyring where errno == .noFunction || errno == .notPermitted:
            return "\(description); use RWSECRET_VAULT_PASSPHRASE or the prompt instead"
        case .unavailable, .locked:
            // The library says the vault is the alternative; the tool says how to choose it.
            return description.hasSuffix(StoreError.vaultAlternative) ? description + ": --store file" : description
        default:
            return description
        }
    }
}
