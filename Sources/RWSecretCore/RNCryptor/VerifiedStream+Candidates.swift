extension VerifiedStream {
    /// One candidate: a form of a password of the chain, or the key.
    struct Candidate {
        let opener: Opener
        let hmacKey: SecretBytes
        let encryptionKey: () -> SecretBytes
    }

    /// The candidates in chain order — every form of every password
    /// (`MessageHeader.kdfPasswords`), HMAC keys derived in one batch — or the key.
    static func candidates(for header: MessageHeader, head: (any DecryptionHandler)?) throws(Failure) -> (candidates: [Candidate], passwords: Int) {
        let offered = head?.chainCandidates(for: header) ?? []
        guard !offered.isEmpty else {
            throw .notOpened(.endOfChain(for: header))
        }
        // Password forms' HMAC keys in one batch per iteration count (one count per chain in practice).
        var hmacKeys: [Int: SecretBytes] = [:]
        var requests: [Int: [(index: Int, password: SecretBytes)]] = [:]
        for (index, candidate) in offered.enumerated() {
            switch candidate.keying {
            case .keys(let keys): hmacKeys[index] = keys.hmacKey
            case .password(let form, let iterations): requests[iterations, default: []].append((index, form))
            }
        }
        if !requests.isEmpty {
            guard let salts = header.salts else { preconditionFailure("password candidates for a key-based message") }
            for (iterations, forms) in requests {
                let keys = KeyDerivation.keys(forms.map { ($0.password, salts.hmac) }, iterations: iterations)
                for (form, key) in zip(forms, keys) { hmacKeys[form.index] = key }
            }
        }
        var names = Set<String>()
        let candidates = offered.enumerated().map { index, candidate in
            if let name = candidate.opener.passwordName { names.insert(name) }
            return Candidate(opener: candidate.opener, hmacKey: hmacKeys[index]!) {
                switch candidate.keying {
                case .keys(let keys): keys.encryptionKey
                case .password(let form, let iterations):
                    KeyDerivation.key(password: form, salt: header.salts!.encryption, iterations: iterations)
                }
            }
        }
        return (candidates, max(names.count, header.isPasswordBased ? 0 : 1))
    }
}
