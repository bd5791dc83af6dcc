import RWSecretKit

extension IdentityChain {
    /// The store's identities as the chain offers them (a damaged item is left out, and said once).
    static func stored(in store: (any PasswordStore)?, global: some GlobalSettings) throws -> [any RWSecretKit.Identity] {
        guard let store = store as? any IdentityStore else { return [] }
        let identities: [StoredIdentity]
        do { identities = try store.identities() } catch { throw CommandFailure(error) }
        var named: [any RWSecretKit.Identity] = []
        for identity in identities {
            guard let usable = identity.identity else {
                Output.standardError.line("rwsecret: warning: the stored identity '\(Output.escaped(identity.label))' is not a valid \(identity.kind.rawValue) identity; not used")
                continue
            }
            named.append(usable)
        }
        global.verboseLine("identities: \(named.count) stored")
        return named
    }
}
