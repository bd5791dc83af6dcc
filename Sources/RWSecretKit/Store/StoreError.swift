/// Why a store operation failed. Descriptions never contain a secret.
public enum StoreError: Error, Sendable, Equatable {
    /// The store cannot be reached or opened; `advice` says what to do. (Exit 69.)
    case unavailable(reason: String, advice: String)
    /// The keyring collection or the vault is locked. (Exit 69.)
    case locked(advice: String)
    /// The label is already in use. (Exit 65.)
    case labelExists(String)
    /// These labels are not stored. (Exit 65.)
    case unknownLabels([String])
    /// The label breaks the label rules. (Exit 65.)
    case invalidLabel(String, reason: String)
    /// Reading or writing the store's files failed. (Exit 74.)
    case io(String)
    /// A new vault's passphrase was rejected by these validators. (Exit 65.)
    case passphraseRejected([ValidationFailure])
}

extension StoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unavailable(let reason, let advice): advice.isEmpty ? reason : "\(reason); \(advice)"
        case .locked(let advice): "the password store is locked; \(advice)"
        case .labelExists(let label): "a password labelled '\(label)' already exists"
        case .unknownLabels(let labels): "no password labelled " + labels.map { "'\($0)'" }.joined(separator: ", ")
        case .invalidLabel(_, let reason): "bad label: \(reason)"
        case .io(let what): what
        case .passphraseRejected(let failures):
            failures.map { "vault passphrase: \($0)" }.joined(separator: "\n")
        }
    }
}
