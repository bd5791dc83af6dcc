#if canImport(Glibc)
internal import Glibc
#endif

/// OpenPGP messages (RFC 9580) encrypted to a password (`gpg -c`) or to public keys (`gpg -e`),
/// binary or ASCII-armored.
///
/// Credentials: passwords, for symmetric-key encrypted session key packets (SKESK v4 and v6, and
/// LibrePGP's v5; S2K simple, salted, iterated and salted, Argon2); OpenPGP secret keys and a
/// program's own `Identity` (`Opening/OpenPGP.swift`), for public-key encrypted session key
/// packets (PKESK v3 and v6, `OpenPGPPublicKeySession.swift`). The body is a SEIPD v1 packet
/// (CFB with a modification detection code), a SEIPD v2 one (AEAD chunks: EAX, OCB, GCM, and a
/// final tag), or LibrePGP's AEAD Encrypted Data packet (tag 20, `OpenPGPLibrePGP.swift`):
/// the decrypted packet stream is parsed and decompressed as it is decrypted, and the plaintext
/// written once, to the sink (`OpenPGPDecryptedStream`); the MDC, or the final tag, is checked
/// at the end, and the sink emptied when it fails: the caller releases nothing before (the CLI's
/// sink is an unnamed private file, linked in only then). Refused with one line:
/// SED packets (no integrity protection), messages that are signed or plain but not encrypted.
package enum OpenPGPKind: MessageKind {
    package static let name = MessageKindName.openpgp
    /// The packet tags that may begin a message in binary form.
    private static let firstTags: Set<UInt8> = [1, 2, 3, 4, 8, 9, 10, 11, 18, 20]

    /// One symmetric-key encrypted session key packet (v4 or v6).
    package struct SKESK: Sendable {
        package var version: UInt8 = 4
        package let cipher: OpenPGPCipher
        package let s2k: OpenPGPS2K
        /// The session key encrypted with the S2K key; empty when the S2K key is the session key
        /// (v4). v6: the encrypted key then its AEAD tag.
        let encryptedKey: [UInt8]
        /// v6: the AEAD mode and nonce the session key is sealed with.
        var aead: OpenPGPAEADMode? = nil
        var iv: [UInt8] = []
    }

    /// What a SEIPD v2 packet says before its chunks (RFC 9580 5.13.2), or LibrePGP's AEAD
    /// Encrypted Data packet (tag 20, `OpenPGPLibrePGP.swift`).
    package struct SEIPDv2: Sendable {
        package let cipher: OpenPGPCipher
        package let mode: OpenPGPAEADMode
        /// The chunk size octet c: chunks of 2^(c+6) bytes.
        let chunkOctet: UInt8
        let salt: [UInt8]
        /// LibrePGP's tag 20: its starting nonce; nil for SEIPD v2.
        var librePGPIV: [UInt8]? = nil

        var chunkSize: Int { 1 << (Int(chunkOctet) + 6) }
        /// The associated data of every chunk: packet tag, version, cipher, mode, chunk size octet
        /// (LibrePGP: then the chunk index).
        var associatedData: [UInt8] {
            librePGPIV == nil ? [0xD2, 2, cipher.id, mode.rawValue, chunkOctet] : [0xD4, 1, cipher.id, mode.rawValue, chunkOctet]
        }
        /// The packet's name in messages.
        var packetName: String { librePGPIV == nil ? "SEIPD v2 \(mode.name)" : "LibrePGP AEAD \(mode.name)" }
    }

    /// What is known before any password is tried.
    package final class Header {
        package let skesks: [SKESK]
        /// The public-key encrypted session key packets that fit the encrypted data's version.
        package internal(set) var pkesks: [OpenPGPPKESK] = []
        /// The key ids of the public-key encrypted session key packets (hex; all zeros: hidden).
        package let publicKeyIDs: [String]
        package let armored: Bool
        /// The first bytes of the SEIPD body after its version (v1: the random prefix and its
        /// quick check, for the cheap check; v2: empty).
        let prefix: [UInt8]
        /// The SEIPD v2 parameters; nil for SEIPD v1.
        package let v2: SEIPDv2?
        /// The rest of the SEIPD body.
        let body: OpenPGPBodySource
        /// The outer packet stream (after the SEIPD packet only its end is expected).
        let packets: KindInput
        /// The literal data packet's file name and date, once decrypted (shown, never used as a path).
        package private(set) var literal: LiteralData?

        init(skesks: [SKESK], publicKeyIDs: [String], armored: Bool, prefix: [UInt8], v2: SEIPDv2? = nil, body: OpenPGPBodySource, packets: KindInput) {
            self.skesks = skesks
            self.v2 = v2
            self.publicKeyIDs = publicKeyIDs
            self.armored = armored
            self.prefix = prefix
            self.body = body
            self.packets = packets
        }

        fileprivate func setLiteral(_ value: LiteralData) { literal = value }
    }

    /// A session key: its cipher and bytes.
    package struct SessionKey {
        package let cipher: OpenPGPCipher
        let key: SecretBytes
    }

    package static func detect(_ prefix: ArraySlice<UInt8>) -> Bool {
        if OpenPGPArmorSource.holdsArmor(prefix) { return true }
        guard let first = prefix.first, first & 0x80 != 0, prefix.count >= 3 else { return false }
        // A packet header, then the first byte of its body: a version or algorithm that fits.
        let tag: UInt8
        var bodyStart = prefix.startIndex + 1
        if first & 0x40 != 0 {
            tag = first & 0x3f
            let b0 = prefix[bodyStart]
            bodyStart += b0 < 192 ? 1 : b0 < 224 ? 2 : b0 == 255 ? 5 : 1
        } else {
            tag = (first >> 2) & 0x0f
            bodyStart += [1, 2, 4, 0][Int(first & 3)]
        }
        guard firstTags.contains(tag), bodyStart < prefix.endIndex else { return false }
        let v = prefix[bodyStart]
        switch tag {
        case 1: return v == 3 || v == 6
        case 3: return v == 4 || v == 5 || v == 6
        case 18: return v == 1 || v == 2
        case 4: return v == 3 || v == 6
        case 2: return v == 3 || v == 4 || v == 5 || v == 6
        case 8: return v <= 3
        case 10: return prefix[bodyStart...].starts(with: "PGP".utf8)
        case 11: return Array("btulm1".utf8).contains(v)
        default: return true
        }
    }

    package static func parseHeader(_ input: KindInput) throws(KindError) -> Header {
        let armored = OpenPGPArmorSource.holdsArmor(try input.peek(detectionLength))
        let packets = armored ? KindInput(OpenPGPArmorSource(input)) : input
        var skesks: [SKESK] = []
        var keyIDs: [String] = []
        var pkesks: [OpenPGPPKESK] = []
        var count = 0
        while true {
            guard let packet = try OpenPGPPacket.readHeader(packets) else {
                if !skesks.isEmpty || !keyIDs.isEmpty { throw .header("no encrypted data after the session key packets") }
                throw .header("an empty message")
            }
            if packet.tag == 1 || packet.tag == 3 {
                count += 1
                guard count <= 1000 else { throw .header("more than 1000 session key packets") }
            }
            let body = OpenPGPBodySource(packets, length: packet.length)
            switch packet.tag {
            case 3:
                skesks.append(try parseSKESK(body.readAll(limit: 1024)))
            case 1:
                let pkesk = try OpenPGPPKESK.parse(body.readAll(limit: 8192))
                pkesks.append(pkesk)
                keyIDs.append(pkesk.keyIDHex)
            case 10:
                try body.skip()
            case 18:
                let version = try body.readPrefix(1)
                guard version == [1] || version == [2] else {
                    throw .header("unknown encrypted data version \(version.first.map(String.init) ?? "none")")
                }
                if skesks.isEmpty && pkesks.isEmpty { throw .header("encrypted data without a session key packet") }
                // A v4 SKESK goes with SEIPD v1, a v6 one with SEIPD v2 (RFC 9580 5.3); others are ignored.
                let fitting = skesks.filter { $0.version == (version == [1] ? 4 : 6) }
                let fittingKeys = try fittingPKESKs(pkesks, seipd: version[0], passwords: !fitting.isEmpty)
                guard !fitting.isEmpty || !fittingKeys.isEmpty else {
                    throw .header("SEIPD v\(version[0]) after session key packets of another version (" + (skesks.first.map { "v\($0.version)" } ?? "PKESK v\(pkesks[0].version)") + ")")
                }
                for skesk in fitting { try skesk.s2k.validate() }
                if version == [2] {
                    let fields = try body.readPrefix(35)
                    guard fields.count == 35 else { throw .header("SEIPD v2 packet cut short") }
                    let v2 = try parseSEIPDv2(fields)
                    let header = Header(skesks: fitting, publicKeyIDs: keyIDs, armored: armored, prefix: [], v2: v2, body: body, packets: packets)
                    header.pkesks = fittingKeys
                    return header
                }
                let prefix = try body.readPrefix(18)
                let header = Header(skesks: fitting, publicKeyIDs: keyIDs, armored: armored, prefix: prefix, body: body, packets: packets)
                header.pkesks = fittingKeys
                return header
            case 20:
                // LibrePGP's AEAD packet goes with v5 SKESKs and v3 PKESKs (gpg 2.4 to a key that
                // announces AEAD, `rnp -e --aead`; OpenPGPLibrePGP.swift).
                let v2 = try parseAEADPacket(body)
                if skesks.isEmpty && pkesks.isEmpty { throw .header("encrypted data without a session key packet") }
                let fitting = skesks.filter { $0.version == 5 }
                let fittingKeys = try fittingPKESKs(pkesks, seipd: 1, passwords: !fitting.isEmpty)
                guard !fitting.isEmpty || !fittingKeys.isEmpty else {
                    throw .header("a LibrePGP AEAD packet after session key packets of another version ("
                                  + (skesks.first.map { "v\($0.version)" } ?? "PKESK v\(pkesks[0].version)") + ")")
                }
                for skesk in fitting { try skesk.s2k.validate() }
                let header = Header(skesks: fitting, publicKeyIDs: keyIDs, armored: armored, prefix: [], v2: v2, body: body, packets: packets)
                header.pkesks = fittingKeys
                return header
            case 9:
                throw .refused("encrypted without integrity protection (SED packet): unauthenticated, refused")
            case 2, 4, 8, 11:
                throw .refused("a signed or plain OpenPGP message: not encrypted")
            default:
                throw .header("unexpected packet (tag \(packet.tag)) before the encrypted data")
            }
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    private static func parseSKESK(_ bytes: [UInt8]) throws(KindError) -> SKESK {
        guard bytes.count >= 4 else { throw .header("malformed symmetric-key session key packet") }
        switch bytes[0] {
        case 4:
            let cipher = OpenPGPCipher(bytes[1])
            if case .unsupported = cipher {
                throw .refused("a session key packet for the \(cipher.name) cipher: not in OpenSSL, not supported (use gpg -d)")
            }
            let (s2k, length) = try OpenPGPS2K.parse(bytes[2...])
            let encryptedKey = Array(bytes[(2 + length)...])
            // 1 byte of algorithm and a session key of 16 to 32 bytes.
            guard encryptedKey.isEmpty || (17...33).contains(encryptedKey.count) else { throw .header("malformed encrypted session key") }
            return SKESK(cipher: cipher, s2k: s2k, encryptedKey: encryptedKey)
        case 6:
            // Version, count of the next five fields, cipher, AEAD mode, S2K length, S2K, nonce; then
            // the encrypted session key and its tag.
            guard bytes.count >= 5 else { throw .header("malformed symmetric-key session key packet") }
            let cipher = OpenPGPCipher(bytes[2])
            let mode = try aeadMode(bytes[3], cipher: cipher)
            let s2kLength = Int(bytes[4])
            guard Int(bytes[1]) == 3 + s2kLength + mode.nonceSize, bytes.count >= 5 + s2kLength + mode.nonceSize else {
                throw .header("malformed v6 symmetric-key session key packet")
            }
            let (s2k, length) = try OpenPGPS2K.parse(bytes[5..<(5 + s2kLength)])
            guard length == s2kLength else { throw .header("malformed S2K specifier in a v6 session key packet") }
            let iv = Array(bytes[(5 + s2kLength)..<(5 + s2kLength + mode.nonceSize)])
            let encryptedKey = Array(bytes[(5 + s2kLength + mode.nonceSize)...])
            guard [16, 24, 32].contains(encryptedKey.count - OpenPGPAEADMode.tagSize) else { throw .header("malformed encrypted session key") }
            return SKESK(version: 6, cipher: cipher, s2k: s2k, encryptedKey: encryptedKey, aead: mode, iv: iv)
        case 5:
            return try parseSKESKv5(bytes)
        default:
            throw .header("unknown symmetric-key session key packet version \(bytes[0])")
        }
    }

    /// An AEAD mode this build opens with `cipher` (OpenSSL has EAX's parts, OCB and GCM for AES only).
    static func aeadMode(_ id: UInt8, cipher: OpenPGPCipher) throws(KindError) -> OpenPGPAEADMode {
        guard let mode = OpenPGPAEADMode(rawValue: id) else { throw .refused("AEAD algorithm \(id): unknown, not supported") }
        switch cipher {
        case .aes128, .aes192, .aes256: return mode
        default: throw .refused("\(mode.name) with the \(cipher.name) cipher: OpenSSL has it for AES only, not supported (use gpg -d)")
        }
    }

    /// Cipher, AEAD mode, chunk size octet, 32 bytes of salt.
    private static func parseSEIPDv2(_ fields: [UInt8]) throws(KindError) -> SEIPDv2 {
        let cipher = OpenPGPCipher(fields[0])
        let mode = try aeadMode(fields[1], cipher: cipher)
        // RFC 9580 5.13.2: at most 16 (chunks of 4 MiB).
        guard fields[2] <= 16 else { throw .header("SEIPD v2 chunk size octet \(fields[2]) (more than 16)") }
        return SEIPDv2(cipher: cipher, mode: mode, chunkOctet: fields[2], salt: Array(fields[3..<35]))
    }

    package static func describeNoMatch(_ header: Header) -> [String] { describeKeys(header) }

    package static func literal(_ header: Header) -> LiteralData? { header.literal }

    package static func unlock(_ header: Header, with credential: Credential) throws(KindError) -> Unlock<SessionKey> {
        if case .openPGPKey(let key) = credential { return try unlock(header, key: key) }
        if case .identity(let own) = credential { return try unlock(header, own: own) }
        // A message to keys alone has no place for a password.
        guard case .password(let password) = credential, !header.skesks.isEmpty else { return .notApplicable }
        // One derivation per distinct S2K and key size, whatever the number of SKESKs.
        var derived: [(OpenPGPS2K, Int, SecretBytes)] = []
        for skesk in header.skesks {
            let size = skesk.cipher.keySize
            let key: SecretBytes
            if let known = derived.first(where: { $0.0 == skesk.s2k && $0.1 == size }) {
                key = known.2
            } else {
                key = try skesk.s2k.derive(password: password, length: size)
                derived.append((skesk.s2k, size, key))
            }
            let session: SessionKey
            if skesk.version == 5, let v2 = header.v2 {
                guard let opened = openV5(skesk, key: key), opened.count == v2.cipher.keySize else { continue }
                return .unlocked(SessionKey(cipher: v2.cipher, key: opened))
            } else if skesk.version == 6, let v2 = header.v2 {
                guard let opened = openV6(skesk, key: key), opened.count == v2.cipher.keySize else { continue }
                return .unlocked(SessionKey(cipher: v2.cipher, key: opened))
            } else if skesk.encryptedKey.isEmpty {
                session = SessionKey(cipher: skesk.cipher, key: key)
            } else {
                guard let cfb = skesk.cipher.cfb(key: key) else { throw .refused("the \(skesk.cipher.name) cipher: this OpenSSL has none") }
                let plain = cfb.decrypt(skesk.encryptedKey)
                let cipher = OpenPGPCipher(plain.withUnsafeBytes { $0[0] })
                // A wrong password gives a random algorithm byte or key size: not this SKESK.
                guard cipher.keySize == plain.count - 1 else { continue }
                session = SessionKey(cipher: cipher, key: plain.slice(1..<plain.count))
            }
            if quickCheck(header.prefix, session) { return .unlocked(session) }
        }
        return .wrongCredential
    }

    /// A v6 SKESK's session key (RFC 9580 5.3.2): the key encryption key is HKDF-SHA256 of the S2K
    /// key with the packet's first bytes as info, and opens the sealed key with them as associated
    /// data. Nil when the tag does not match (a wrong password).
    private static func openV6(_ skesk: SKESK, key: SecretBytes) -> SecretBytes? {
        guard let mode = skesk.aead else { return nil }
        let info: [UInt8] = [0xC3, 6, skesk.cipher.id, mode.rawValue]
        let kek = KindPrimitives.hkdfSHA256(key: key, salt: [], info: info, length: skesk.cipher.keySize)
        return unseal(skesk, key: kek, ad: info)
    }

    /// The quick check: the last two bytes of the random prefix repeated (RFC 9580 5.13.1).
    static func quickCheck(_ prefix: [UInt8], _ session: SessionKey) -> Bool {
        let bs = session.cipher.blockSize
        guard prefix.count >= bs + 2, let cfb = session.cipher.cfb(key: session.key) else { return false }
        let plain = cfb.decrypt(prefix[0..<(bs + 2)])
        return plain.withUnsafeBytes { p in p[bs - 2] == p[bs] && p[bs - 1] == p[bs + 1] }
    }

    package static func decryptBody(_ header: Header, key session: SessionKey, from _: KindInput, into sink: some PlaintextSink) throws(KindError) {
        do throws(KindError) {
            if let v2 = header.v2 { return try release(decryptV2(header, v2, key: session), header: header, into: sink) }
            let bs = session.cipher.blockSize
            guard let cfb = session.cipher.cfb(key: session.key), let sha1 = OpenPGPDigest("SHA1") else {
                throw .refused("the \(session.cipher.name) cipher: this OpenSSL has none")
            }
            guard header.prefix.count >= bs + 2 else { throw .payload("the encrypted data is cut short") }
            try release(OpenPGPCFBStream(header: header, cfb: cfb, sha1: sha1, blockSize: bs), header: header, into: sink)
        } catch {
            sink.discard()
            throw error
        }
    }

    /// Parses the packets of `stream` as it is decrypted, writing the literal data to `sink`
    /// (the plaintext is written once), then checks what authenticates the whole stream. What
    /// went wrong in the packets inside (a parse error, a corrupt compressed stream, a sink
    /// that is full) is told only once the stream has verified: a changed message, or a wrong
    /// key that passed the quick check, is an MDC or tag failure whatever its packets look like.
    /// Compressed data is not inflated before then: it is kept as it is in a spool (at most the
    /// message's size), and inflated into `sink` only once the stream has verified, so that an
    /// unauthenticated message cannot make the sink hold more than its own size (a
    /// decompression bomb with a wrong MDC). The caller empties the sink when this throws.
    private static func release(_ stream: some OpenPGPDecryptedStream, header: Header, into sink: some PlaintextSink) throws(KindError) {
        let deferred = DeferredCompression(sink)
        let parsed: Result<LiteralData?, KindError>
        do { parsed = .success(try releaseLiteral(from: KindInput(stream), into: sink, depth: 0, deferring: deferred)) } catch {
            if let failure = stream.failure { throw failure }
            parsed = .failure(Self.inside(error))
        }
        try stream.finish()
        if let literal = try parsed.get() { return header.setLiteral(literal) }
        // Verified: the compressed data kept aside is inflated now.
        guard let spool = deferred.spool, let algorithm = deferred.algorithm else { throw .payload("no literal data packet in the encrypted data") }
        let literal: LiteralData?
        do {
            let inflated = KindInput(try OpenPGPDecompressor(algorithm: algorithm, body: SpoolSource(spool)))
            literal = try releaseLiteral(from: inflated, into: sink, depth: 1, deferring: nil)
        } catch {
            throw Self.inside(error)
        }
        guard let literal else { throw .payload("no literal data packet in the encrypted data") }
        header.setLiteral(literal)
    }

    /// A parse error of the packets inside verified encrypted data: not the outer packets'
    /// "invalid header", but what it is (the message is authentic and was written so).
    private static func inside(_ error: KindError) -> KindError {
        if case .header(let why) = error { return .packetInside(why) }
        return error
    }

    /// How deep compressed data packets may nest inside the encrypted data. gpg stops at 32
    /// nested packets (g10/mainproc.c's MAX_NESTING_DEPTH, "a much lower should actually be
    /// sufficient"); every writer known makes one layer, so two are allowed here: each layer of
    /// deflate multiplies the size by up to a thousand.
    static let maxNesting = 2

    /// The compressed data packet kept aside until the stream verifies: its algorithm and spool.
    final class DeferredCompression {
        private let make: () throws(KindError) -> any PlaintextSpool
        private(set) var spool: (any PlaintextSpool)?
        private(set) var algorithm: UInt8?

        init(_ sink: some PlaintextSink) { make = { () throws(KindError) in try sink.makeSpool() } }

        /// Copies the rest of `body` (the compressed stream) into a new spool.
        func keep(_ body: OpenPGPBodySource, algorithm: UInt8) throws(KindError) {
            let spool = try make()
            let size = 1 << 20
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
            defer {
                Crypto.cleanse(buffer)
                buffer.deallocate()
            }
            while true {
                let n = try body.read(into: buffer)
                if n == 0 { break }
                try spool.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            }
            self.spool = spool
            self.algorithm = algorithm
        }
    }

    /// Removes every CR from `buffer` in place (gpg's rule for text literals on Linux); returns
    /// how many bytes are left at its start.
    static func droppingCarriageReturns(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        var kept = 0
        for i in 0..<buffer.count where buffer[i] != 0x0d {
            buffer[kept] = buffer[i]
            kept += 1
        }
        return kept
    }

    /// Finds the one literal data packet in `input` (inside compressed data, beside signature
    /// packets) and writes its data to `sink`; returns its name and date. With `deferring`, a
    /// compressed data packet is kept there, not inflated, and nil returned in place of its literal.
    static func releaseLiteral(from input: KindInput, into sink: some PlaintextSink, depth: Int,
                               deferring deferred: DeferredCompression? = nil) throws(KindError) -> LiteralData? {
        guard depth <= maxNesting else { throw .payload("compressed data nested more than \(maxNesting) deep") }
        var seenLiteral: LiteralData?
        var seenCompressed = false
        // One-pass signature packets' hashes of the literal data, and the signatures after it.
        var hashers: [OpenPGPSignatureHasher] = []
        var signatures: [OpenPGPSignature] = []
        // Data that is not a packet stream at all (`rnp --no-wrap` puts the bare file there): one
        // named error whatever its first bytes are.
        let noLiteral = KindError.payload("no literal data packet in the encrypted data")
        var first = true
        while true {
            let next: OpenPGPPacket.Header?
            do { next = try OpenPGPPacket.readHeader(input) } catch {
                // Only a packet header that is not one: a failing decompressor says its own line.
                if first, case .header = error { throw noLiteral }
                throw error
            }
            guard let packet = next else { break }
            guard !first || [2, 4, 8, 10, 11, 21].contains(packet.tag) else { throw noLiteral }
            first = false
            let body = OpenPGPBodySource(input, length: packet.length)
            switch packet.tag {
            case 8:
                guard seenLiteral == nil, !seenCompressed else { throw .payload("more than one literal data packet") }
                let algorithm = try body.readPrefix(1)
                guard let id = algorithm.first else { throw .payload("an empty compressed data packet") }
                if let deferred, id != 0 {
                    try deferred.keep(body, algorithm: id)
                    seenCompressed = true
                } else {
                    let inner: ByteSource = id == 0 ? body : try OpenPGPDecompressor(algorithm: id, body: body)
                    seenLiteral = try releaseLiteral(from: KindInput(inner), into: sink, depth: depth + 1, deferring: deferred)
                    if seenLiteral == nil { seenCompressed = true }
                }
            case 11:
                guard seenLiteral == nil, !seenCompressed else { throw .payload("more than one literal data packet") }
                let start = try body.readPrefix(2)
                guard start.count == 2 else { throw .payload("a literal data packet cut short") }
                let name = try body.readPrefix(Int(start[1]))
                let date = try body.readPrefix(4)
                guard name.count == Int(start[1]), date.count == 4 else { throw .payload("a literal data packet cut short") }
                let literal = LiteralData(name: name, date: date.reduce(0) { $0 << 8 | UInt32($1) }, format: start[0])
                // Text ('t') and UTF-8 ('u') literals hold CRLF line ends (`gpg --textmode`, gosop):
                // written with the platform's LF, as gpg on Linux writes them (it drops every CR).
                let textMode = start[0] == UInt8(ascii: "t") || start[0] == UInt8(ascii: "u")
                // Whole buffers to the sink: a body in partial lengths (gpg writes 8 KiB parts inside
                // compressed data) would otherwise cost a write per part.
                let size = 1 << 20
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
                defer {
                    Crypto.cleanse(buffer)
                    buffer.deallocate()
                }
                var ended = false
                while !ended {
                    var filled = 0
                    while filled < size {
                        let n = try body.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<size]))
                        if n == 0 { ended = true; break }
                        filled += n
                    }
                    for hasher in hashers { hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<filled])) }
                    if textMode { filled = Self.droppingCarriageReturns(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<filled])) }
                    if filled > 0 { try sink.write(UnsafeRawBufferPointer(rebasing: buffer[0..<filled])) }
                }
                seenLiteral = literal
            case 4:
                // A one-pass signature: the literal data that follows is hashed for it.
                // At most `maxSignatures` (each hashes the whole literal data again): one past that is read and left alone.
                let bytes = try body.readAll(limit: 1024)
                if hashers.count < OpenPGPSignature.maxSignatures, let hasher = OpenPGPSignatureHasher.onePass(bytes) { hashers.append(hasher) }
            case 2:
                // A signature after the literal data: its hash finished now, checked by the
                // caller once the message has verified (OpenPGPSignature.swift). One before the
                // data (no one-pass packet) is not one this reader hashed for: left alone.
                let bytes = try body.readAll(limit: 1 << 16)
                if seenLiteral != nil, signatures.count < OpenPGPSignature.maxSignatures, let signature = OpenPGPSignature.parse(bytes, hashers: hashers) {
                    signatures.append(signature)
                }
            case 10, 21:
                // Markers and padding.
                try body.skip()
            default:
                throw .payload("unexpected packet (tag \(packet.tag)) in the encrypted data")
            }
        }
        guard seenLiteral != nil || seenCompressed else { throw noLiteral }
        if var literal = seenLiteral {
            // A one-pass packet whose signature packet never came: said, not checked.
            for hasher in hashers where !hasher.used {
                signatures.append(.unchecked(issuer: hasher.issuerHex, "no signature packet after the data, not checked"))
            }
            literal.signatures = signatures + literal.signatures
            seenLiteral = literal
        }
        return seenLiteral
    }
}
