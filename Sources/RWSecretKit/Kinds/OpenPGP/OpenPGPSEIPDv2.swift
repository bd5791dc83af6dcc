extension OpenPGPKind {
    /// SEIPD v2 (RFC 9580 5.13.2): the message key and nonce prefix are HKDF-SHA256 of the session
    /// key with the packet's salt; each chunk is sealed with the nonce prefix and its index, the
    /// final tag over nothing with the total plaintext length as well. The stream of the opened
    /// chunks (each tag checked before its bytes are read), its final tag checked at its end.
    static func decryptV2(_ header: Header, _ v2: SEIPDv2, key session: SessionKey) throws(KindError) -> OpenPGPAEADStream {
        let mode = v2.mode
        if v2.librePGPIV != nil {
            // LibrePGP: the session key is the message key (OpenPGPLibrePGP.swift).
            guard let opener = OpenPGPAEADOpener(mode: mode, cipher: v2.cipher, key: session.key) else {
                throw .refused("\(mode.name) with the \(v2.cipher.name) cipher: this OpenSSL has none")
            }
            return OpenPGPAEADStream(header: header, v2: v2, opener: opener, noncePrefix: [])
        }
        let keySize = v2.cipher.keySize
        let prefixSize = mode.nonceSize - 8
        let derived = KindPrimitives.hkdfSHA256(key: session.key, salt: v2.salt, info: v2.associatedData, length: keySize + prefixSize)
        let messageKey = derived.slice(0..<keySize)
        let noncePrefix = derived.withUnsafeBytes { Array($0[keySize...]) }
        guard let opener = OpenPGPAEADOpener(mode: mode, cipher: v2.cipher, key: messageKey) else {
            throw .refused("\(mode.name) with the \(v2.cipher.name) cipher: this OpenSSL has none")
        }
        return OpenPGPAEADStream(header: header, v2: v2, opener: opener, noncePrefix: noncePrefix)
    }
}
