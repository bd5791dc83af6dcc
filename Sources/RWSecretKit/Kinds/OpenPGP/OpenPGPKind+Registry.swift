/// What the `KindRegistry` and the opener ask of the OpenPGP kind: its needs, its costly
/// tries (Argon2, a high iterated count), and its test of a packet that begins a message no
/// kind here opens.
extension OpenPGPKind {
    /// Passwords (SKESK packets) and OpenPGP secret keys (PKESK packets).
    package static let needs = CredentialNeeds(passwords: true, identities: [.openPGPKey])

    /// A try is costly when a session key packet's S2K is (Argon2, a high iterated count).
    package static func oneTryIsCostly(_ header: Header) -> Bool { costlyTry(header) != nil }

    /// The message's costliest S2K when it is worth several tries at once: its memory and
    /// threads per try, and its words for the verbose line.
    package static func costlyTry(_ header: Header) -> CostlyTry? {
        let costly = header.skesks.map(\.s2k).filter(\.isCostly)
        guard let worst = costly.max(by: { $0.memoryPerTry < $1.memoryPerTry }) else { return nil }
        return CostlyTry(memory: worst.memoryPerTry, threads: costly.map(\.threads).max() ?? 1, words: worst.words)
    }

    /// Whether `prefix` begins an OpenPGP message in any form (armored, or a public-key or
    /// symmetric-key encrypted session key packet), whether or not `detect` takes it.
    package static func beginsSessionKeyPacket(_ prefix: ArraySlice<UInt8>) -> Bool {
        let text = prefix.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
        if text.starts(with: OpenPGPArmorSource.beginLine) { return true }
        guard let first = prefix.first, first & 0x80 != 0 else { return false }
        let tag = first & 0x40 != 0 ? first & 0x3f : (first >> 2) & 0x0f
        return tag == 1 || tag == 3  // a public-key or a symmetric-key encrypted session key
    }
}
