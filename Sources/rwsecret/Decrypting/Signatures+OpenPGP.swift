import RWSecretKit

/// Signed-and-encrypted OpenPGP messages (issue 34): their signatures checked, once the message
/// has verified, with the keys the run knows (`IdentityChain.signatureKeys`), and said:
/// `signed by FINGERPRINT, verified` / `not verified` / `BAD signature`. A bad signature from a
/// known key is said on stderr whatever `--verbose` says and makes the run fail (1), as gpg
/// does; the plaintext, authenticated by its encryption, is released all the same.
enum SignerKeys {
    /// `--signer-key` files: OpenPGP public keys or certificates, armored or binary (a secret
    /// key file too: its public parts are read, no passphrase asked).
    static func load(_ paths: [String]) throws -> [OpenPGP.Certificate] {
        var keys: [OpenPGP.Certificate] = []
        for path in paths {
            var bytes = try readSmallFile(path, what: "signer key file", limit: 16 << 20)
            defer { SecretBytes.cleanse(&bytes) }
            guard OpenPGP.looksLikeKey(bytes) else {
                throw CommandFailure(.dataError, "\(Output.escaped(path)): not an OpenPGP public key (give a file from gpg --export or sq key extract-cert)")
            }
            do { keys += try OpenPGP.Certificate.parse(bytes) } catch {
                throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
            }
        }
        return keys
    }
}

extension OpenPGPSignature.Outcome {
    /// After `signed by FINGERPRINT, `.
    var words: String {
        switch self {
        case .verified: "verified"
        case .bad: "BAD signature"
        case .unknownKey: "not verified"
        case .unchecked(let why): "not verified (\(why))"
        }
    }

    /// JSON's `signature`.
    var jsonWord: String {
        switch self {
        case .verified: "verified"
        case .bad: "BAD signature"
        case .unknownKey, .unchecked: "not verified"
        }
    }
}

extension LiteralData {
    /// The signatures checked with `keys`.
    func checkingSignatures(with keys: [OpenPGP.Certificate]) -> LiteralData {
        guard !signatures.isEmpty else { return self }
        var copy = self
        copy.signatures = signatures.map { $0.checked(with: keys) }
        return copy
    }

    /// `signed by FINGERPRINT, verified`, one per signature.
    var signatureLines: [String] { signatures.map { "signed by \($0.issuer), \($0.outcome.words)" } }

    /// The line said on stderr for each bad signature (nil: none).
    var badSignatureLine: String? {
        let bad = signatures.filter { $0.outcome == .bad }.map(\.issuer)
        guard !bad.isEmpty else { return nil }
        return "BAD signature from \(bad.joined(separator: ", ")): the message decrypted and its encryption verified (the plaintext is written), but that key did not sign it"
    }
}
