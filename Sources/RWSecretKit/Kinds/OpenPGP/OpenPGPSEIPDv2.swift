extension OpenPGPKind {
    /// SEIPD v2 (RFC 9580 5.13.2): the message key and nonce prefix are HKDF-SHA256 of the session
    /// key with the packet's salt; each chunk is sealed with the nonce prefix and its index, the
    /// final tag over nothing with the total plaintext length as well. Every chunk is opened (its
    /// tag checked) into the private spool, then the final tag checked, and only then is the
    /// packet stream parsed and released, as for SEIPD v1.
    static func decryptV2(_ header: Header, _ v2: SEIPDv2, key session: SessionKey, into sink: some PlaintextSink) throws(KindError) {
        let mode = v2.mode
        let keySize = v2.cipher.keySize
        let prefixSize = mode.nonceSize - 8
        let derived = KindPrimitives.hkdfSHA256(key: session.key, salt: v2.salt, info: v2.associatedData, length: keySize + prefixSize)
        let messageKey = derived.slice(0..<keySize)
        let noncePrefix = derived.withUnsafeBytes { Array($0[keySize...]) }
        guard let opener = OpenPGPAEADOpener(mode: mode, cipher: v2.cipher, key: messageKey) else {
            throw .refused("\(mode.name) with the \(v2.cipher.name) cipher: this OpenSSL has none")
        }
        let tagSize = OpenPGPAEADMode.tagSize
        let chunkSize = v2.chunkSize
        let spool: PrivateFile
        do { spool = try PrivateFile(in: temporaryFolder, needsName: false) } catch { throw .io(error) }

        // A whole sealed chunk and the 16 bytes after it: a chunk is known to be a full one (not
        // the last) only when more than its tag follows it.
        let capacity = chunkSize + 2 * tagSize
        let sealed = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer {
            Crypto.cleanse(plain)
            sealed.deallocate()
            plain.deallocate()
        }
        func nonce(_ index: UInt64) -> [UInt8] {
            noncePrefix + (0..<8).map { UInt8(truncatingIfNeeded: index >> (56 - 8 * UInt64($0))) }
        }
        var index: UInt64 = 0
        var total: UInt64 = 0
        /// Opens the chunk of `count` sealed bytes at the start of `sealed` into the spool.
        func openChunk(_ count: Int) throws(KindError) {
            let length = count - tagSize
            let ok = opener.open(UnsafeRawBufferPointer(rebasing: sealed[0..<length]), tag: UnsafeRawBufferPointer(rebasing: sealed[length..<count]),
                                 nonce: nonce(index), ad: v2.associatedData, into: plain)
            guard ok else {
                throw .payload("AEAD chunk \(index) does not authenticate (the message was changed, or cut)")
            }
            do { try spool.write(UnsafeRawBufferPointer(rebasing: plain[0..<length])) } catch { throw .io(error) }
            index += 1
            total += UInt64(length)
        }
        var held = 0
        while true {
            let n = try header.body.read(into: UnsafeMutableRawBufferPointer(rebasing: sealed[held..<capacity]))
            held += n
            if held == capacity {
                try openChunk(chunkSize + tagSize)
                sealed.baseAddress!.copyMemory(from: sealed.baseAddress! + chunkSize + tagSize, byteCount: tagSize)
                held = tagSize
                continue
            }
            if n == 0 { break }
        }
        guard try header.packets.isAtEnd() else { throw .payload("data after the encrypted data packet") }
        guard held >= tagSize else { throw .payload("the encrypted data is cut short (no final tag)") }
        if held > tagSize {
            guard held - tagSize > tagSize else { throw .payload("the encrypted data is cut short (a chunk shorter than its tag)") }
            try openChunk(held - tagSize)
            sealed.baseAddress!.copyMemory(from: sealed.baseAddress! + held - tagSize, byteCount: tagSize)
        }
        // The final tag: over no plaintext, with the total length in the associated data.
        let finalAD = v2.associatedData + (0..<8).map { UInt8(truncatingIfNeeded: total >> (56 - 8 * UInt64($0))) }
        let finalOK = opener.open(UnsafeRawBufferPointer(start: nil, count: 0), tag: UnsafeRawBufferPointer(rebasing: sealed[0..<tagSize]),
                                  nonce: nonce(index), ad: finalAD, into: UnsafeMutableRawBufferPointer(rebasing: plain[0..<0]))
        guard finalOK else { throw .payload("the final AEAD tag does not match (the message was cut short or changed)") }

        try releaseLiteral(from: KindInput(SpoolSource(spool)), header: header, into: sink, depth: 0)
    }
}
