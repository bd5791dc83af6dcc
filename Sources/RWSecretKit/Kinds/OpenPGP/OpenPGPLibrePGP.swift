/// LibrePGP's AEAD form (draft-koch-librepgp, rfc4880bis-10 5.3 and 5.16), which gpg 2.4 writes
/// (`--force-aead`, and to keys that announce AEAD) and rnp with `--aead=ocb|eax`: a v5 SKESK
/// and an AEAD Encrypted Data packet (tag 20).
///
/// - SKESK v5: version, cipher, AEAD mode, S2K, nonce, the session key sealed under the S2K key
///   itself (no HKDF), its tag; associated data: 0xC3, 5, cipher, mode. A wrong password fails
///   the tag.
/// - Tag 20: version 1, cipher, AEAD mode, chunk size octet, a starting nonce; then chunks of
///   2^(c+6) bytes each with its tag, and a final tag. The session key is the message key; chunk
///   i's nonce is the starting nonce with its last 8 bytes XORed with i; its associated data is
///   0xD4, 1, cipher, mode, c, and i in 8 bytes; the final tag's, the same with the index after
///   the last chunk and the total plaintext length in 8 more. Read by `OpenPGPAEADStream` as
///   SEIPD v2 is: every chunk's tag checked before its bytes are read, the final tag at the end.
extension OpenPGPKind {
    /// A v5 SKESK's fields after its version.
    static func parseSKESKv5(_ bytes: [UInt8]) throws(KindError) -> SKESK {
        guard bytes.count >= 4 else { throw .header("malformed v5 symmetric-key session key packet") }
        let cipher = OpenPGPCipher(bytes[1])
        let mode = try aeadMode(bytes[2], cipher: cipher)
        let (s2k, length) = try OpenPGPS2K.parse(bytes[3...])
        let ivStart = 3 + length
        guard bytes.count >= ivStart + mode.nonceSize else { throw .header("malformed v5 symmetric-key session key packet") }
        let iv = Array(bytes[ivStart..<(ivStart + mode.nonceSize)])
        let encryptedKey = Array(bytes[(ivStart + mode.nonceSize)...])
        guard [16, 24, 32].contains(encryptedKey.count - OpenPGPAEADMode.tagSize) else { throw .header("malformed encrypted session key") }
        return SKESK(version: 5, cipher: cipher, s2k: s2k, encryptedKey: encryptedKey, aead: mode, iv: iv)
    }

    /// What an AEAD Encrypted Data packet says before its chunks: version, cipher, mode, chunk
    /// size octet (read from `body`), then its starting nonce.
    static func parseAEADPacket(_ body: OpenPGPBodySource) throws(KindError) -> SEIPDv2 {
        let fields = try body.readPrefix(4)
        guard fields.count == 4 else { throw .header("AEAD encrypted data packet cut short") }
        guard fields[0] == 1 else { throw .header("unknown AEAD encrypted data packet version \(fields[0])") }
        let cipher = OpenPGPCipher(fields[1])
        let mode = try aeadMode(fields[2], cipher: cipher)
        // LibrePGP allows up to 56; gpg writes at most 16 (4 MiB chunks), as RFC 9580 allows.
        guard fields[3] <= 16 else { throw .header("AEAD encrypted data chunk size octet \(fields[3]) (more than 16)") }
        let iv = try body.readPrefix(mode.nonceSize)
        guard iv.count == mode.nonceSize else { throw .header("AEAD encrypted data packet cut short") }
        return SEIPDv2(cipher: cipher, mode: mode, chunkOctet: fields[3], salt: [], librePGPIV: iv)
    }

    /// A v5 SKESK's session key: opened with the S2K key and the packet's first bytes as
    /// associated data; nil when the tag does not match (a wrong password).
    static func openV5(_ skesk: SKESK, key: SecretBytes) -> SecretBytes? {
        guard let mode = skesk.aead else { return nil }
        return unseal(skesk, key: key, ad: [0xC3, 5, skesk.cipher.id, mode.rawValue])
    }

    /// The session key an AEAD SKESK (v5, v6) seals: opened with `key` in the packet's mode
    /// and nonce, `ad` its associated data; nil when the tag does not match (a wrong password).
    static func unseal(_ skesk: SKESK, key: SecretBytes, ad: [UInt8]) -> SecretBytes? {
        guard let mode = skesk.aead, let opener = OpenPGPAEADOpener(mode: mode, cipher: skesk.cipher, key: key) else { return nil }
        let sealed = skesk.encryptedKey.count - OpenPGPAEADMode.tagSize
        var ok = false
        let plain = SecretBytes(count: sealed) { out in
            skesk.encryptedKey.withUnsafeBytes { raw in
                ok = opener.open(UnsafeRawBufferPointer(rebasing: raw[0..<sealed]), tag: UnsafeRawBufferPointer(rebasing: raw[sealed...]),
                                 nonce: skesk.iv, ad: ad, into: out)
            }
            if !ok { Crypto.cleanse(out) }
        }
        return ok ? plain : nil
    }
}
