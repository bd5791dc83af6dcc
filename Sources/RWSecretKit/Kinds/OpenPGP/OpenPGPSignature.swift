/// Who signed a signed-and-encrypted message (`gpg -se`, `sq encrypt --signer`): the issuer of
/// its one-pass signature packets (RFC 9580 5.4). Said in `--verbose` and JSON; not verified.
enum OpenPGPSignerID {
    /// A one-pass signature's issuer: v3, its key ID; v6, its fingerprint (upper-case hex).
    static func onePass(_ body: [UInt8]) -> String? {
        guard let version = body.first else { return nil }
        switch version {
        case 3:
            guard body.count == 13 else { return nil }
            return OpenPGPKeyFile.hex(Array(body[4..<12]))
        case 6:
            guard body.count >= 5 else { return nil }
            let saltLength = Int(body[4])
            guard body.count == 5 + saltLength + 32 + 1 else { return nil }
            return OpenPGPKeyFile.hex(Array(body[(5 + saltLength)..<(5 + saltLength + 32)]))
        default:
            return nil
        }
    }
}
