import RWSecretKit

extension IdentityChain {
    /// The store's identities as the chain offers them (a damaged item is left out, and said once).
    static func stored(in store: (any PasswordStore)?, global: GlobalOptions) throws -> [NamedIdentity] {
        guard let store = store as? any IdentityStore else { return [] }
        let identities: [StoredIdentity]
        do { identities = try store.identities() } catch { throw CommandFailure(error) }
        var named: [NamedIdentity] = []
        for identity in identities {
            if identity.kind == .openPGP {
                guard let key = identity.openPGPKey else {
                    Output.standardError.line("rwsecret: warning: the stored identity '\(Output.escaped(identity.label))' is not a valid \(identity.kind.rawValue) identity; not used")
                    continue
                }
                named.append(NamedIdentity(name: identity.label, openPGP: key))
                continue
            }
            guard let age = identity.ageIdentity else {
                Output.standardError.line("rwsecret: warning: the stored identity '\(Output.escaped(identity.label))' is not a valid \(identity.kind.rawValue) identity; not used")
                continue
            }
            named.append(NamedIdentity(name: identity.label, identity: age))
        }
        global.verboseLine("identities: \(named.count) stored")
        return named
    }
}
