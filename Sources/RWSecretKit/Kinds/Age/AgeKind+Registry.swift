/// What the `KindRegistry` and the opener ask of the age kind: its needs, its costly tries
/// (scrypt, several at once), and its own tests of an input's first bytes.
extension AgeKind {
    /// Passwords (an scrypt stanza) and X25519 or OpenSSH identities.
    package static let needs = CredentialNeeds(passwords: true, identities: [.ageX25519, .ageSSH, .ageOwn])

    /// An scrypt stanza's try is costly (up to 2^22 iterations and 4 GiB); an identity's is not.
    package static func oneTryIsCostly(_ header: Header) -> Bool { costlyTry(header) != nil }

    /// An scrypt stanza's try: its memory (r = 8) on one thread. Its tries run in
    /// `unlockAtOnce`, so this is asked for the memory alone (`MessageKinds.memoryPerTry`).
    package static func costlyTry(_ header: Header) -> CostlyTry? {
        guard let scrypt = header.scrypt else { return nil }
        return CostlyTry(memory: AgeScryptBatch.memoryPerTry(logN: scrypt.logN), threads: 1, words: "scrypt work factor \(scrypt.logN)")
    }

    /// An scrypt stanza is alone in its header: only passwords open it, tried several at once
    /// within `budget` (`AgeScryptBatch`), decided in order all the same.
    package static func unlockAtOnce(_ header: Header, passwords: [SecretBytes], budget: TryBudget) throws(KindError) -> AtOnceUnlock<SecretBytes>? {
        guard header.scrypt != nil else { return nil }
        guard let outcome = try AgeScryptBatch(budget: budget).unlock(header, passwords: passwords) else { return AtOnceUnlock(found: nil, cost: nil) }
        return AtOnceUnlock(found: outcome.found.map { ($0.index, $0.fileKey) }, cost: outcome.cost)
    }

    /// Whether `prefix` holds an age armor's BEGIN line at the start of a later line (asked
    /// when it is no armored file: `AgeArmorSource.detect` is false), after text that is not
    /// whitespace (CCTV's armor_garbage_leading): age refuses it, and so does `parseHeader`,
    /// in one line rather than one per row.
    package static func detectAfterText(_ prefix: ArraySlice<UInt8>) -> Bool {
        var index = prefix.startIndex
        while let newline = prefix[index...].firstIndex(of: 0x0a) {
            index = newline + 1
            if prefix[index...].starts(with: AgeArmorSource.beginLine) { return true }
        }
        return false
    }

    /// Whether a first line is an age file's, damaged: it begins `age-`, or holds `-encryption.org/`.
    package static func looksLikeDamagedIntro(_ line: ArraySlice<UInt8>) -> Bool {
        line.starts(with: "age-".utf8) || line.indices.contains { line[$0...].starts(with: "-encryption.org/".utf8) }
    }
}
