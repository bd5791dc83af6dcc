import Dispatch

/// Whole messages of another kind (age, OpenPGP, Ansible Vault) opened by a run's chain: what
/// the run was given first, the store lazily, the last winner first; at `--jobs` N, whole
/// files walk the chain in the run's gate order (issue 36).
extension Decryption {
    /// What a message was offered: the passwords and identities tried or ready to try.
    package struct Offered {
        package var passwords = 0
        package var identities = 0

        package init(passwords: Int = 0, identities: Int = 0) {
            self.passwords = passwords
            self.identities = identities
        }
    }

    /// Opens `input`, of `kind`, with what the run was given first (run-only passwords,
    /// `--identity` files: identities only to an age file); only when none of those opens it is
    /// the store opened (the first time) and its passwords and identities tried too. So a key
    /// given with `--identity` needs no store: not its passphrase, nor a keyring. A store that
    /// cannot be opened then throws (`StoreError`, or what the client's opener threw).
    package func openLazily<K: MessageKind>(_ kind: K.Type, input: KindInput, identities: IdentityChain, budget: TryBudget,
                                            into sink: some PlaintextSink, offered: inout Offered) throws -> Result<MessageKinds.Decrypted, KindFailure> {
        let runOnly = client.runOnlyPasswords
        let files = Self.fitting(identities.fileIdentities(), to: kind)
        offered = Offered(passwords: runOnly.count, identities: files.count)
        var storeError: (any Error)?
        var added = Offered()
        let more = { [client, identities] () -> (passwords: [ChainPassword], identities: [any Identity])? in
            do {
                let chain = try client.chainHead()?.chainPasswords() ?? []
                // The run's passwords were tried already (the chain holds them, or a stored copy).
                let rest = chain.filter { password in !runOnly.contains { $0.secret.isEqual(to: password.secret) } }
                let stored = Self.fitting(try identities.storedIdentities(), to: kind)
                added = Offered(passwords: rest.count, identities: stored.count)
                return (rest, stored)
            } catch {
                storeError = error
                return nil
            }
        }
        let result: Result<MessageKinds.Decrypted, KindFailure>
        do {
            result = .success(try MessageKinds.open(kind, input: input, passwords: runOnly, identities: files, budget: budget, more: more, into: sink))
        } catch {
            result = .failure(error)
        }
        Self.count(kind, result)
        offered.passwords += added.passwords
        offered.identities += added.identities
        if let storeError { throw storeError }
        return result
    }

    /// The identities a message of `kind` is offered: age identities and SSH keys to an age
    /// file, OpenPGP secret keys to an OpenPGP message, none to another.
    package static func fitting(_ identities: [NamedIdentity], to kind: any MessageKind.Type) -> [NamedIdentity] {
        identities.filter { $0.credential.identityType.map(kind.needs.identities.contains) ?? false }
    }

}

/// Whole files of another kind on the pipeline's threads (issue 36).
///
/// At --jobs N the files of a run are opened N at a time, and keep what one at a time gave:
/// the password that opened the file before goes first for the next. Each file walks the
/// chain in the order of the run's `SearchGate`, as RNCryptor messages do, numbered by its
/// place in the pipeline: the winner of its nearest neighbour in flight, else of the nearest
/// earlier file (or message) opened, then the nearest later one, then the chain's head when
/// it opened the latest message; past the winners, the first password that no related walk
/// in flight has claimed. A file that started before a neighbour's winner was found tries
/// it at its next password. So files under one password cost one key each, as at --jobs 1,
/// and where the password changes each file in flight tries the old one once more at most.
extension Decryption {
    /// `openLazily` on a pipeline thread (a whole file at `--jobs` 2 and more, at `position` in
    /// the run): the run's passwords and its identities' files, then (only when none opened the
    /// message) the store's; the passwords of each in the gate's order. Throws what opening the
    /// store threw.
    package func walk<K: MessageKind>(_ kind: K.Type, input: () -> KindInput, identities: IdentityChain, position: Int, budget: TryBudget,
                                      costly: Bool, into sink: MemoryPlaintext, offered: inout Offered) throws -> Result<MessageKinds.Decrypted, KindFailure> {
        let runOnly = client.runOnlyPasswords
        let files = Self.fitting(identities.fileIdentities(at: position), to: kind)
        offered = Offered(passwords: runOnly.count, identities: files.count)
        let first = walk(kind, input: input, passwords: runOnly, identities: files, position: position, budget: budget, costly: costly, into: sink)
        guard case .failure(let failure) = first, case .noMatch = failure.error else { return first }
        let chain: [ChainPassword]
        let stored: [NamedIdentity]
        // A store that cannot be opened throws (`StoreError`, or what the client's opener threw).
        chain = try client.chainHead()?.chainPasswords() ?? []
        stored = Self.fitting(try identities.storedIdentities(at: position), to: kind)
        // The run's passwords were tried already (the chain holds them, or a stored copy).
        let rest = chain.filter { password in !runOnly.contains { $0.secret.isEqual(to: password.secret) } }
        offered.passwords += rest.count
        offered.identities += stored.count
        guard !rest.isEmpty || !stored.isEmpty else { return first }
        return walk(kind, input: input, passwords: rest, identities: stored, position: position, budget: budget, costly: costly, into: sink)
            .map { $0.adding(tried: failure.tried) }
            .mapError { $0.adding(tried: failure.tried) }
    }

    /// One round: `passwords` one at a time (a costly kind's several at once while its walk is
    /// alone), in the order the run's gate gives walk `position`, then `identities`.
    /// The outcome is that of `MessageKinds.open` with them all: a message that a password
    /// opens is opened by the first of `passwords` (the latest winner first) with its secret.
    private func walk<K: MessageKind>(_ kind: K.Type, input: () -> KindInput, passwords: [ChainPassword], identities: [NamedIdentity],
                                      position: Int, budget: TryBudget, costly: Bool, into sink: MemoryPlaintext) -> Result<MessageKinds.Decrypted, KindFailure> {
        func open(_ passwords: [ChainPassword], _ identities: [NamedIdentity], after tried: Int) -> Result<MessageKinds.Decrypted, KindFailure> {
            let result: Result<MessageKinds.Decrypted, KindFailure>
            do { result = .success(try MessageKinds.open(kind, input: input(), passwords: passwords, identities: identities, budget: budget, into: sink)) } catch {
                result = .failure(error)
            }
            Decryption.count(kind, result)
            return result
                .map { $0.adding(tried: tried) }
                .mapError { $0.adding(tried: tried) }
        }
        guard !passwords.isEmpty else { return open([], identities, after: 0) }
        // The password that opened the latest message goes first (as `PasswordHandler` walks).
        var order = passwords
        let latest = gate.latestOpener
        if let latest, let index = order.firstIndex(where: { $0.name == latest }), index > 0 { order.insert(order.remove(at: index), at: 0) }
        let names = order.map(\.name)
        let preferred: Int? = latest != nil && names[0] == latest ? 0 : nil
        var untried = [Bool](repeating: true, count: order.count)
        var remaining = order.count
        var tried = 0
        var failure: KindFailure?
        let number = gate.begin(at: position)
        var opened = false
        defer {
            gate.end(walk: number)
            wholeFiles.ended(at: position, opened: opened)
        }
        while remaining > 0 {
            // The first alone (it is usually the winner); a costly kind's next several at once
            // while the walk is alone (`SearchGate.claim`), within the budget's threads and memory.
            let count = costly && budget.jobs > 1 && remaining < order.count ? budget.jobs : 1
            let picked = gate.claim(count, of: names, untried: untried, preferred: preferred, walk: number).sorted()
            guard !picked.isEmpty else { break }
            for index in picked { untried[index] = false }
            remaining -= picked.count
            switch open(picked.map { order[$0] }, [], after: tried) {
            case .success(let outcome):
                guard case .password(let password) = outcome.openedBy, let at = names.firstIndex(of: password.name) else { return .success(outcome) }
                // A password before it in this walk's order, not tried yet, with the same secret would
                // have opened it first: it names the opener, as at --jobs 1.
                let opener = order.indices.first { $0 < at && untried[$0] && order[$0].secret.isEqual(to: password.secret) }.map { order[$0] } ?? password
                gate.tried(picked.map { names[$0] }, matched: password.name, opener: opener.name, walk: number)
                opened = true
                return .success(outcome.opened(by: .password(opener)))
            case .failure(let error):
                gate.tried(picked.map { names[$0] }, walk: number)
                guard case .noMatch = error.error else { return .failure(error) }
                // No password fits this message (an age file to recipients, an OpenPGP message
                // to keys alone): the identities only, as `MessageKinds.open` offers them.
                if error.tried == tried { return open([], identities, after: tried) }
                // Past the first password, the earlier files looking for the same one go first
                // (the chain is not walked twice at once): each file in flight where the password
                // changes tries the old one once more at most.
                if tried == 0 { wholeFiles.walks(at: position) }
                tried = error.tried
                failure = error
            }
        }
        if !identities.isEmpty { return open([], identities, after: tried) }
        return .failure(failure ?? KindFailure.of(K.name, .noMatch([]), tried: tried))
    }
}

/// The whole files of a run (`Decryption.walk`): whether one has gone first, and the
/// files in flight that are walking the chain past their first password.
package final class WholeFiles: @unchecked Sendable {
    // All mutable state is guarded by `lock`.
    private let lock = ThreadLock()
    private var started = false
    /// The walks past their first password, by place in the pipeline: done when they end.
    private var walking: [Int: DispatchGroup] = [:]
    /// The places of the files opened so far, in order.
    private var opened: [Int] = []

    /// True the first time only.
    package func first() -> Bool {
        lock.withLock {
            defer { started = true }
            return !started
        }
    }

    /// The file at `position` failed its first password and walks the chain: first it waits for
    /// the earlier files walking now with none opened between them and it (they look for the
    /// same password: the winner of one is the other's most likely), then walks (`ended`).
    package func walks(at position: Int) {
        let earlier: [DispatchGroup] = lock.withLock {
            let group = DispatchGroup()
            group.enter()
            walking[position] = group
            return walking.filter { other, _ in other < position && !opened.contains { $0 > other && $0 < position } }.map(\.value)
        }
        for group in earlier { group.wait() }
    }

    /// The file at `position` is done (`opened`: by a password); a walk that began ends.
    package func ended(at position: Int, opened wasOpened: Bool) {
        lock.withLock {
            if wasOpened { opened.insert(position, at: opened.firstIndex { $0 > position } ?? opened.count) }
            walking.removeValue(forKey: position)?.leave()
        }
    }
}

