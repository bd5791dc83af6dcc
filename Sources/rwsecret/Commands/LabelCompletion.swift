import ArgumentParser
import RWSecretKit

/// Shell completion of stored labels (`password remove`, `encrypt --password-label`, and the
/// identities' for the `identity` commands):
/// what `rwsecret password list` prints, from the store the command line names
/// (`--store`, `--vault`), quietly. Never asks anything: a vault whose passphrase is
/// not at hand (no `RWSECRET_VAULT_PASSPHRASE`) completes nothing.
enum LabelCompletion {
    @Sendable static func complete(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        complete(words, index, prefix) { try $0.labels() }
    }

    /// The stored identities' labels (`identity recipient|remove|rename|copy|export`).
    @Sendable static func completeIdentities(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        complete(words, index, prefix) { store in try (store as? any IdentityStore)?.identityLabels() ?? [] }
    }

    private static func complete(_ words: [String], _ index: Int, _ prefix: String,
                                 labels read: (any PasswordStore) throws -> [String]) -> [String] {
        Terminal.promptsForbidden = true
        var storeArguments: [String] = []
        var iterator = words.makeIterator()
        while let word = iterator.next() {
            if word == "--store" || word == "--vault", let value = iterator.next() {
                storeArguments += [word, unquoted(value)]
            } else if word.hasPrefix("--store=") || word.hasPrefix("--vault=") {
                storeArguments.append(unquoted(word))
            }
        }
        guard let global = try? GlobalOptions.parse(storeArguments),
              let store = try? global.openStore(), let labels = try? read(store) else { return [] }
        let typed = Set(words.enumerated().filter { $0.offset != index }.map(\.element))
        return labels.filter { $0.hasPrefix(prefix) && !typed.contains($0) }
    }

    /// The shell passes words verbatim; good enough for paths without quotes inside.
    private static func unquoted(_ word: String) -> String {
        word.filter { $0 != "'" && $0 != "\"" }
    }
}
