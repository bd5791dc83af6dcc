/// What the `KindRegistry` and the opener ask of the Ansible Vault kind.
extension AnsibleVaultKind {
    /// Passwords only (vault passwords, `--vault-id` labels are not read).
    package static let needs = CredentialNeeds(passwords: true)

    /// One PBKDF2-SHA256 derivation of 10,000 iterations: not costly.
    package static func oneTryIsCostly(_ header: Header) -> Bool { false }

    /// Whether YAML `text` has a `!vault` tag (values that could not be read when
    /// `vaultValues(inYAML:)` found none: no or TAB indentation).
    package static func mentionsVaultTag(_ text: [UInt8]) -> Bool {
        let tag = Array("!vault".utf8)
        return text.indices.contains { text[$0...].starts(with: tag) }
    }
}
