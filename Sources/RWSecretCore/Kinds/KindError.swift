/// Why a message of another kind (RWSecretKit's kinds) did not open. Facts only: no secret
/// and no option name appears in a description.
package enum KindError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The ASCII armor around the message is malformed.
    case armor(String)
    /// The header is malformed (an age header line or stanza, an Ansible Vault envelope).
    case header(String)
    /// An age scrypt stanza asks for a work factor above the limit (22, as age).
    case workFactorTooHigh(Int)
    /// No credential opened the message; for age, the types of its recipient stanzas.
    case noMatch([String])
    /// A credential opened the file key, but the header's MAC does not match: the header was changed.
    case headerMAC
    /// The encrypted data verified (its MDC or AEAD tag), but a packet inside it is malformed:
    /// the message is authentic and was written so (OpenPGP).
    case packetInside(String)
    /// The body does not authenticate (a chunk's tag, a missing final chunk, trailing data, an HMAC).
    case payload(String)
    /// The plaintext is larger than the in-memory limit.
    case tooLarge(limit: Int)
    /// Reading the input or writing the plaintext failed.
    case io(SystemError)
    /// A message of this kind that is never opened here (OpenPGP without integrity protection, to
    /// a public key, not encrypted): the one line that says why.
    case refused(String)
    /// A key derivation could not get the memory it needs (the process's limit, `ulimit -v` or a
    /// cgroup's, leaves too little even for one try at a time): nothing says the message is damaged.
    case outOfMemory(String)

    package var description: String {
        switch self {
        case .armor(let why): "invalid armor: \(why)"
        case .header(let why): "invalid header: \(why)"
        case .workFactorTooHigh(let logN): "scrypt work factor \(logN) is above the limit of 22 (it would cost 2^\(logN) iterations and \(Self.scryptMemory(logN)))"
        case .noMatch(let types) where types.isEmpty: "no credential opens it"
        case .noMatch(let types): "no credential opens it (recipients: \(types.joined(separator: ", ")))"
        case .headerMAC: "header MAC mismatch (the header was changed)"
        case .packetInside(let why): "bad packet inside the encrypted data: \(why)"
        case .payload(let why): "payload does not authenticate: \(why)"
        case .tooLarge(let limit): "plaintext larger than \(limit) bytes"
        case .io(let error): "\(error)"
        case .refused(let why): why
        case .outOfMemory(let what): "memory ran out: \(what)"
        }
    }

    private static func scryptMemory(_ logN: Int) -> String {
        guard logN < 50 else { return "more memory than exists" }
        let mib = ((128 * 8) << logN) >> 20
        return mib >= 1024 ? "\(mib >> 10) GiB of memory" : "\(mib) MiB of memory"
    }
}
