import COpenSSL
import Foundation
@testable import RWSecretKit
import Testing

/// RFC 9580's own sample messages (appendix A.9 to A.12, Fixtures/kinds/openpgp-rfc9580): v6
/// SKESK with SEIPD v2 in EAX, OCB and GCM, and v4 SKESK with SEIPD v1 under the Argon2 S2K.
/// Each opens with the RFC's password "password" and holds "Hello, world!".
@Suite("RFC 9580 appendix A sample messages (Fixtures/kinds/openpgp-rfc9580)")
struct OpenPGPRFC9580Tests {
    static let directory = Fixtures.directory.appendingPathComponent("kinds/openpgp-rfc9580")
    static let aead = ["a9-v6skesk-aes128-eax.asc", "a10-v6skesk-aes128-ocb.asc", "a11-v6skesk-aes128-gcm.asc"]
    static let argon2 = ["a12.1-v4skesk-argon2-aes128.asc", "a12.2-v4skesk-argon2-aes192.asc", "a12.3-v4skesk-argon2-aes256.asc"]
    static let password = Array("password".utf8)
    static let plaintext = Array("Hello, world!".utf8)

    static func bytes(_ file: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: directory.appendingPathComponent(file).path) ?? Data())
    }

    @Test("each AEAD sample opens with \"password\" (second in the chain: tried 2) and holds \"Hello, world!\"", arguments: aead)
    func opens(_ file: String) throws {
        let message = Self.bytes(file)
        #expect(message.count > 100, "fixture \(file) missing")
        #expect(MessageKinds.detect(ArraySlice(message.prefix(detectionLength))) == OpenPGPKind.self)
        let opened = try openPGP(message, [Array("Password".utf8), Self.password]).result.get()
        #expect(opened.plaintext == Self.plaintext)
        #expect(opened.index == 1 && opened.tried == 2)
    }

    /// The Argon2 samples ask for 2 GiB per derivation (m = 2^21 KiB): one at a time, one password each.
    @Test("each Argon2 sample (t=1, p=4, m=2 GiB) opens with \"password\" and holds \"Hello, world!\"", .serialized, arguments: argon2)
    func opensArgon2(_ file: String) throws {
        let message = Self.bytes(file)
        #expect(message.count > 100, "fixture \(file) missing")
        let opened = try openPGP(message, [Self.password]).result.get()
        #expect(opened.plaintext == Self.plaintext)
    }

    @Test("the AEAD samples' session key is the RFC's (A.9.3: 3881bafe985412459b86c36f98cb9a5e for EAX)")
    func eaxSessionKey() throws {
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: Self.bytes("a9-v6skesk-aes128-eax.asc")))
        guard case .unlocked(let session) = try OpenPGPKind.unlock(header, with: .password(SecretBytes(Self.password))) else {
            Issue.record("not unlocked"); return
        }
        #expect(session.key.withUnsafeBytes { Array($0) } == Hex.decode("3881bafe985412459b86c36f98cb9a5e"))
    }

    @Test("a wrong password fails the SKESK's AEAD tag: no match, nothing released", arguments: aead)
    func wrongPassword(_ file: String) throws {
        let (result, sunk) = openPGP(Self.bytes(file), [Array("passwore".utf8)])
        #expect(result.failure == .noMatch([]))
        #expect(sunk == 0)
    }

    @Test("every changed byte of an AEAD sample's encrypted data, and of its sealed session key, is refused with nothing released", arguments: aead)
    func tampered(_ file: String) throws {
        let text = String(decoding: Self.bytes(file), as: UTF8.self)
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty && !$0.hasPrefix("=") }.joined()
        let binary = try #require(Data(base64Encoded: body).map { Array($0) })
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: binary))
        guard case .unlocked(let session) = try OpenPGPKind.unlock(header, with: .password(SecretBytes(Self.password))) else {
            Issue.record("not unlocked"); return
        }
        // The SEIPD packet (each of its bytes, with the session key known: one S2K in all).
        let seipd = Int(binary[1]) + 2
        for position in seipd..<binary.count {
            var copy = binary
            copy[position] ^= 0x10
            let sink = MemoryPlaintext()
            let input = KindInput(bytes: copy)
            var opened = false
            if let changed = try? OpenPGPKind.parseHeader(input) {
                opened = (try? OpenPGPKind.decryptBody(changed, key: session, from: input, into: sink)) != nil
            }
            #expect(!opened, "byte \(position) of \(binary.count) changed, still opened")
            #expect(sink.bytes.isEmpty, "byte \(position): \(sink.bytes.count) bytes reached the sink")
        }
        // The sealed session key: its nonce's first byte, its first byte, its tag's last byte.
        for position in [seipd - 49, seipd - 32, seipd - 1] {
            var copy = binary
            copy[position] ^= 0x10
            let (result, sunk) = openPGP(copy, [Self.password])
            #expect(result.failure == .noMatch([]), "byte \(position)")
            #expect(sunk == 0)
        }
    }

    @Test("an AEAD message cut short (the final tag or a whole chunk gone) releases nothing", arguments: aead)
    func truncated(_ file: String) throws {
        let text = String(decoding: Self.bytes(file), as: UTF8.self)
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty && !$0.hasPrefix("=") }.joined()
        let binary = try #require(Data(base64Encoded: body).map { Array($0) })
        // The SEIPD packet is the second one, with a one-byte length: shorten it and its length.
        let seipd = Int(binary[1]) + 2
        #expect(binary[seipd] == 0xD2)
        for cut in [16, 32, 1] {
            var copy = Array(binary.dropLast(cut))
            copy[seipd + 1] -= UInt8(cut)
            let (result, sunk) = openPGP(copy, [Self.password])
            if case .success = result { Issue.record("cut by \(cut): still opened") }
            #expect(sunk == 0)
        }
    }
}

@Suite("OpenPGP: a costly S2K is tried for several passwords at once, within the memory budget, decided in chain order")
struct OpenPGPParallelTriesTests {
    static func chain(_ secrets: [String]) -> [ChainPassword] {
        secrets.enumerated().map { ChainPassword(name: "p\($0.offset)", secret: SecretBytes(Array($0.element.utf8))) }
    }

    @Test("the EAX sample (iterated S2K, 65 MB hashed per try): 4 passwords, 4 at once, the last one wins with tried 4")
    func parallelInOrder() throws {
        let message = OpenPGPRFC9580Tests.bytes("a9-v6skesk-aes128-eax.asc")
        let sink = MemoryPlaintext()
        let opened = try MessageKinds.open(OpenPGPKind.self, input: KindInput(bytes: message), passwords: Self.chain(["a", "b", "c", "password"]),
                                           identities: [], budget: TryBudget(jobs: 4, memory: 1 << 30), into: sink)
        #expect(sink.bytes == OpenPGPRFC9580Tests.plaintext)
        #expect(opened.tried == 4)
        guard case .password(let password) = opened.openedBy else { Issue.record("not a password"); return }
        #expect(password.name == "p3")
        let cost = try #require(opened.cost, "no cost line for a costly S2K")
        #expect(cost.atOnce == 4 && cost.tries == 4)
        #expect(cost.words.hasPrefix("OpenPGP iterated S2K (65011712 bytes hashed): 64 KiB per try, 4 tried, 4 at once"), "\(cost.words)")
    }

    @Test("two right passwords in one batch: the first in chain order wins, whichever finishes first")
    func firstInChainWins() throws {
        let message = OpenPGPRFC9580Tests.bytes("a10-v6skesk-aes128-ocb.asc")
        let opened = try MessageKinds.open(OpenPGPKind.self, input: KindInput(bytes: message), passwords: Self.chain(["x", "password", "password"]),
                                           identities: [], budget: TryBudget(jobs: 3, memory: 1 << 30), into: MemoryPlaintext())
        guard case .password(let password) = opened.openedBy else { Issue.record("not a password"); return }
        #expect(password.name == "p1" && opened.tried == 2)
    }

    @Test("how many at once: --jobs over the Argon2 lanes, within the memory budget, at least one")
    func width() {
        let gib = 1 << 30
        // The RFC's Argon2 samples: 2 GiB and 4 lanes per try.
        #expect(TryBudget(jobs: 8, memory: 5 * gib).atOnce(count: 10, perTry: 2 * gib, threads: 4) == 2)
        #expect(TryBudget(jobs: 16, memory: 5 * gib).atOnce(count: 10, perTry: 2 * gib, threads: 4) == 2)
        #expect(TryBudget(jobs: 16, memory: 64 * gib).atOnce(count: 10, perTry: 2 * gib, threads: 4) == 4)
        #expect(TryBudget(jobs: 8, memory: gib).atOnce(count: 10, perTry: 2 * gib, threads: 4) == 1)
        #expect(TryBudget(jobs: 8, memory: gib).atOnce(count: 3, perTry: 64 << 10) == 3)
        let s2k = OpenPGPS2K(mode: .argon2([UInt8](repeating: 0, count: 16), passes: 1, parallelism: 4, memoryExponent: 21), hash: 0)
        #expect(s2k.memoryPerTry == 2 * gib && s2k.threads == 4 && s2k.isCostly)
        #expect(!OpenPGPS2K(mode: .iterated([UInt8](repeating: 0, count: 8), count: 65536), hash: 8).isCostly)
    }

    @Test("an Argon2 S2K asking for more than 4 GiB per try is refused before any try (--memory raises the bound)")
    func argon2Limit() throws {
        var message = OpenPGPRFC9580Tests.bytes("a12.1-v4skesk-argon2-aes128.asc")
        // Binary form, memory exponent 21 -> 23 (8 GiB).
        let text = String(decoding: message, as: UTF8.self)
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty && !$0.hasPrefix("=") }.joined()
        message = try #require(Data(base64Encoded: body).map { Array($0) })
        try #require(message[23] == 21)
        message[23] = 23
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: message))
        #expect(throws: KindError.refused("OpenPGP Argon2 S2K (t=1, p=4, m=2^23 KiB) needs 8 GiB a try, more than the 4 GiB allowed (give --memory 8G to allow it)")) {
            try OpenPGPKind.checkCost(header, budget: TryBudget(jobs: 1, memory: 1 << 30))
        }
        try OpenPGPKind.checkCost(header, budget: TryBudget(jobs: 1, memory: 8 << 30))
    }
}

@Suite("OpenPGP CFB: AES's whole blocks go through OpenSSL's pipelined AES-ECB, byte for byte OpenSSL's CFB")
struct OpenPGPCFBTests {
    /// OpenSSL's own CFB128 encryption.
    static func encrypt(_ name: String, key: [UInt8], iv: [UInt8], _ plain: [UInt8]) -> [UInt8] {
        let ctx = EVP_CIPHER_CTX_new()
        defer { EVP_CIPHER_CTX_free(ctx) }
        let cipher = EVP_CIPHER_fetch(nil, name, nil)
        defer { EVP_CIPHER_free(cipher) }
        var out = [UInt8](repeating: 0, count: plain.count + 16)
        var written: Int32 = 0
        _ = EVP_EncryptInit_ex2(ctx, cipher, key, iv, nil)
        _ = EVP_EncryptUpdate(ctx, &out, &written, plain, Int32(plain.count))
        return Array(out.prefix(Int(written)))
    }

    @Test("AES-128/192/256: decrypted in pieces of every size from 1 to 40 bytes and large runs, with an IV of zeros or not",
          arguments: [("AES-128-CFB", 16), ("AES-192-CFB", 24), ("AES-256-CFB", 32)])
    func matchesOpenSSL(_ name: String, _ keySize: Int) throws {
        let key = Crypto.randomBytes(count: keySize)
        for iv in [[UInt8](repeating: 0, count: 16), Crypto.randomBytes(count: 16)] {
            let plain = Crypto.randomBytes(count: 70_001)
            let sealed = Self.encrypt(name, key: key, iv: iv, plain)
            let cfb = try #require(OpenPGPCFBDecryptor(cipher: name, key: key, iv: iv))
            #expect(cfb.isPipelined)
            var out = [UInt8](repeating: 0, count: plain.count)
            var offset = 0
            var step = 1
            while offset < sealed.count {
                let n = min(sealed.count - offset, step <= 40 ? step : 9_999 + step)
                sealed.withUnsafeBytes { s in
                    out.withUnsafeMutableBytes { o in
                        cfb.decrypt(UnsafeRawBufferPointer(rebasing: s[offset..<(offset + n)]), into: UnsafeMutableRawBufferPointer(rebasing: o[offset..<(offset + n)]))
                    }
                }
                offset += n
                step = step % 47 + 1
            }
            #expect(out == plain)
        }
    }

    @Test("Camellia, CAST5, Blowfish and 3DES keep OpenSSL's CFB")
    func othersUnchanged() {
        #expect(OpenPGPCFBDecryptor(cipher: "CAMELLIA-128-CFB", key: [UInt8](repeating: 1, count: 16))?.isPipelined == false)
        #expect(OpenPGPCFBDecryptor(cipher: "DES-EDE3-CFB", key: [UInt8](repeating: 1, count: 24))?.isPipelined == false)
    }
}
