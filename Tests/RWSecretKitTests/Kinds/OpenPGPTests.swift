import COpenSSL
import Foundation
@testable import RWSecretKit
import Testing

/// One message of Fixtures/kinds/openpgp (scripts/generate-openpgp-fixtures.py): made once by
/// gpg 2.2, committed, so that these messages open on a machine without gnupg too.
struct OpenPGPFixture: CustomTestStringConvertible, Sendable {
    let file: String
    let secret: [UInt8]?
    /// nil: opens; else a fragment of the refusal.
    let refusal: String?
    let sha256: String
    let plaintext: [UInt8]?
    let literalName: String?

    var testDescription: String { "openpgp/\(file)" }

    static let directory = Fixtures.directory.appendingPathComponent("kinds/openpgp")

    static let all: [OpenPGPFixture] = Fixtures.text("kinds/openpgp/manifest.tsv").split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
        let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return OpenPGPFixture(file: f[0], secret: f[1] == "-" ? nil : Hex.decode(f[1]),
                              refusal: f[2].hasPrefix("refused:") ? String(f[2].dropFirst(8)) : nil,
                              sha256: f[3], plaintext: f[4] == "-" ? nil : Hex.decode(f[4]), literalName: f[5] == "-" ? nil : f[5])
    }

    var bytes: [UInt8] { Array(FileManager.default.contents(atPath: Self.directory.appendingPathComponent(file).path) ?? Data()) }
}

/// Opens `message` as OpenPGP with `passwords`: the plaintext, the index and tried count, and the
/// literal packet's name; or the error (and then whatever reached the sink, which must be nothing).
func openPGP(_ message: [UInt8], _ passwords: [[UInt8]]) -> (result: Result<(plaintext: [UInt8], index: Int, tried: Int, name: [UInt8]?), KindError>, sunk: Int) {
    let sink = MemoryPlaintext()
    do {
        let input = KindInput(bytes: message)
        let header = try OpenPGPKind.parseHeader(input)
        guard let (key, index, tried) = try OpenPGPKind.firstUnlock(header, credentials: passwords.map { .password(SecretBytes($0)) }) else {
            return (.failure(.noMatch(OpenPGPKind.describeNoMatch(header))), sink.bytes.count)
        }
        try OpenPGPKind.decryptBody(header, key: key, from: input, into: sink)
        return (.success((sink.bytes, index, tried, header.literal?.name)), sink.bytes.count)
    } catch {
        return (.failure(error), sink.bytes.count)
    }
}

@Suite("Committed OpenPGP messages made by gpg 2.2 (Fixtures/kinds/openpgp)")
struct OpenPGPFixturesTests {
    @Test("the fixtures cover every cipher gpg writes, every S2K digest and mode, every compression, armored and binary, and the refusals")
    func coverage() {
        let names = OpenPGPFixture.all.map(\.file).joined(separator: " ")
        for part in ["aes128", "aes192", "aes256", "camellia128", "camellia192", "camellia256", "cast5", "3des", "blowfish", "twofish",
                     "md5", "sha1", "ripemd160", "sha224", "sha256", "sha384", "sha512", "simple", "salted",
                     "zip", "zlib", "bzip2", "none", ".asc", ".gpg", "sed", "public-key-only", "signed-only", "clear-signed", "empty"] {
            #expect(names.contains(part), "no fixture for \(part)")
        }
    }

    @Test("each fixture is detected, and opens with its passphrase as the second of the chain (tried 2), or is refused with its line",
          arguments: OpenPGPFixture.all)
    func opens(_ fixture: OpenPGPFixture) throws {
        let message = fixture.bytes
        #expect(OpenPGPKind.detect(ArraySlice(message.prefix(detectionLength))))
        #expect(MessageKinds.detect(ArraySlice(message.prefix(detectionLength))) == OpenPGPKind.self)
        let secret = fixture.secret ?? Array("anything".utf8)
        let (result, sunk) = openPGP(message, [secret + [0x21], secret])
        switch (result, fixture.refusal) {
        case (.success(let opened), nil):
            #expect(sha256Hex(opened.plaintext) == fixture.sha256)
            if let plaintext = fixture.plaintext { #expect(opened.plaintext == plaintext) }
            #expect(opened.index == 1 && opened.tried == 2)
            #expect(opened.name.map { String(decoding: $0, as: UTF8.self) } == fixture.literalName)
        case (.failure(.refused(let line)), let refusal?):
            #expect(line.contains(refusal), "\(line)")
            #expect(sunk == 0)
        case (.failure(.noMatch(let keyIDs)), "no identity holds"):
            // To a public key only: no password has a place; the key IDs are said (issue 34).
            #expect(!keyIDs.isEmpty && sunk == 0)
        default:
            Issue.record("\(result)")
        }
    }

    @Test("a message to a public key that no identity opens names its key id (as gpg --list-packets shows it)")
    func publicKeyIDs() throws {
        let message = try #require(OpenPGPFixture.all.first { $0.file == "public-key-only.gpg" }).bytes
        guard case .failure(.noMatch(let keyIDs)) = openPGP(message, [[0x61]]).result else { Issue.record("not a no-match"); return }
        // The PKESK's key id: bytes 3...10 of the packet (old-format header, version 3).
        #expect(keyIDs == [message[3..<11].map { String(format: "%02X", $0) }.joined()], "\(keyIDs)")
    }

    @Test("tampered copies of binary and armored messages release nothing", arguments: ["aes256-sha256-zlib.gpg", "cast5-md5-bzip2.asc", "3des-salted-sha1.gpg", "camellia128-sha384-none.asc"])
    func tampered(_ file: String) throws {
        let fixture = try #require(OpenPGPFixture.all.first { $0.file == file })
        let message = fixture.bytes
        let secret = try #require(fixture.secret)
        let armored = file.hasSuffix(".asc")
        var changed = 0
        for position in 0..<message.count {
            var copy = message
            if armored {
                // Another base64 letter, where one was.
                guard copy[position].isBase64Letter, position > 30, position < message.count - 32 else { continue }
                copy[position] = copy[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            } else {
                copy[position] ^= 0x01
            }
            changed += 1
            let (result, sunk) = openPGP(copy, [secret])
            if case .success(let opened) = result, opened.plaintext != fixture.plaintext || !armored {
                Issue.record("byte \(position) of \(message.count) changed, still opened")
            }
            #expect(sunk == 0 || result.isSuccess, "byte \(position): \(sunk) bytes reached the sink before the error")
        }
        #expect(changed > 20)
    }

    @Test("armor: the CRC line is optional, and a wrong CRC is refused")
    func armorChecksum() throws {
        let fixture = try #require(OpenPGPFixture.all.first { $0.file == "aes128-sha1-zip.asc" })
        let secret = try #require(fixture.secret)
        var lines = String(decoding: fixture.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let crc = try #require(lines.firstIndex { $0.hasPrefix("=") && $0.count == 5 })
        var wrong = lines
        wrong[crc] = "=" + (lines[crc].dropFirst().first == "A" ? "B" : "A") + lines[crc].dropFirst(2)
        #expect(openPGP(Array(wrong.joined(separator: "\n").utf8), [secret]).result.failure == .armor("CRC-24 checksum mismatch"))
        lines.remove(at: crc)
        let opened = try openPGP(Array(lines.joined(separator: "\n").utf8), [secret]).result.get()
        #expect(opened.plaintext == fixture.plaintext)
        // CRLF line ends and a comment header are fine too.
        var headed = lines
        headed.insert("Comment: made for a test", at: 1)
        #expect(try openPGP(Array(headed.joined(separator: "\r\n").utf8), [secret]).result.get().plaintext == fixture.plaintext)
    }

    @Test("a quick check passed by a wrong key (1 in 65,536) still ends in the MDC failing, with nothing released")
    func quickCheckFalsePositive() throws {
        let password = Array("a wrong password that passes the quick check".utf8)
        let s2k = OpenPGPS2K(mode: .iterated(Crypto.randomBytes(count: 8), count: 1024), hash: 8)
        let key = try s2k.derive(password: password, length: 32)
        // A random first block, then the two bytes that make the quick check pass under `key`.
        var body = Crypto.randomBytes(count: 18 + 200)
        body[16] = 0
        body[17] = 0
        let probe = Array(try #require(OpenPGPCFBDecryptor(cipher: "AES-256-CFB", key: key)).decrypt(body[0..<18]).withUnsafeBytes { Array($0) })
        body[16] = probe[16] ^ probe[14]
        body[17] = probe[17] ^ probe[15]
        let message = OpenPGPBuilder.skesk(cipher: 9, s2k: s2k) + OpenPGPBuilder.packet(tag: 18, [1] + body)
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: message))
        guard case .unlocked = try OpenPGPKind.unlock(header, with: .password(SecretBytes(password))) else {
            Issue.record("the crafted quick check did not pass")
            return
        }
        let (result, sunk) = openPGP(message, [password])
        guard case .failure(.payload(let why)) = result else { Issue.record("\(result)"); return }
        #expect(why.contains("modification detection code"))
        #expect(sunk == 0)
    }

    @Test("several SKESKs: each passphrase opens the message through its own packet (one with an encrypted session key)")
    func severalSKESKs() throws {
        let fixture = try #require(OpenPGPFixture.all.first { $0.file == "aes256-sha256-zlib.gpg" })
        let first = try #require(fixture.secret)
        let message = fixture.bytes
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: message))
        let sessionKey = try header.skesks[0].s2k.derive(password: first, length: 32)
        // A second SKESK for another passphrase, whose encrypted session key is the first one's key.
        let second = Array("another passphrase ✓".utf8)
        let s2k = OpenPGPS2K(mode: .iterated(Crypto.randomBytes(count: 8), count: 2048), hash: 2)
        let wrapKey = try s2k.derive(password: second, length: 32)
        let esk = OpenPGPBuilder.cfbEncrypt(key: wrapKey, [9] + sessionKey.withUnsafeBytes { Array($0) })
        let both = OpenPGPBuilder.skesk(cipher: 9, s2k: s2k, encryptedKey: esk) + message
        #expect(try openPGP(both, [Array("nope".utf8), second]).result.get().tried == 2)
        #expect(try openPGP(both, [first]).result.get().plaintext == fixture.plaintext)
        #expect(openPGP(both, [Array("nope".utf8)]).result.failure == .noMatch([]))
    }

    @Test("partial body lengths in new-format packets, split at every allowed size")
    func partialLengths() throws {
        let fixture = try #require(OpenPGPFixture.all.first { $0.file == "aes192-sha512-bzip2.gpg" })
        let secret = try #require(fixture.secret)
        let message = fixture.bytes
        // Re-frame the SEIPD packet's body in partial lengths of 512 bytes, then a fixed rest.
        var input = KindInput(bytes: message)
        var rebuilt: [UInt8] = []
        while let packet = try OpenPGPPacket.readHeader(input) {
            let body = try OpenPGPBodySource(input, length: packet.length).readAll(limit: 1 << 20)
            rebuilt += packet.tag == 18 ? OpenPGPBuilder.partialPacket(tag: 18, body, part: 512) : OpenPGPBuilder.packet(tag: packet.tag, body)
        }
        input = KindInput(bytes: rebuilt)
        #expect(rebuilt != message)
        let opened = try openPGP(rebuilt, [secret]).result.get()
        #expect(sha256Hex(opened.plaintext) == fixture.sha256)
        // Cut inside a part: an error, nothing released.
        let (cut, sunk) = openPGP(Array(rebuilt.prefix(rebuilt.count - 100)), [secret])
        #expect(!cut.isSuccess && sunk == 0)
    }

    @Test("the fuzz target's gpg seeds (Fuzz/corpus/openpgp/seed*) open with the fuzz password, so the fuzzer starts past the MDC")
    func fuzzSeeds() throws {
        let folder = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/openpgp")
        let seeds = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("seed") }
        #expect(seeds.count >= 4)
        for seed in seeds {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(seed)))
            #expect(try openPGP(bytes, [Array("fuzz".utf8)]).result.get().plaintext == Array("fuzz seed\n".utf8), "\(seed)")
        }
    }

    @Test("malformed input: errors, never a crash (every prefix of a message, and random packets)")
    func malformed() throws {
        let fixture = try #require(OpenPGPFixture.all.first { $0.file == "camellia192-sha224-zlib.gpg" })
        let secret = try #require(fixture.secret)
        let message = fixture.bytes
        for length in 0..<message.count {
            let (result, sunk) = openPGP(Array(message.prefix(length)), [secret])
            #expect(!result.isSuccess && sunk == 0, "prefix \(length)")
        }
        for _ in 0..<300 {
            var bytes = Crypto.randomBytes(count: Int.random(in: 1...64))
            bytes[0] = [0x8c, 0xc3, 0xd2, 0xa3, 0xc9, 0x84][Int.random(in: 0..<6)]
            _ = openPGP(bytes, [secret])
        }
    }
}

/// The body of a SEIPD packet is decrypted, parsed and released in one pass (OpenPGPStreams):
/// the plaintext is written once, to the sink, and the sink emptied when the MDC fails.
@Suite("OpenPGP: the plaintext written once")
struct OpenPGPStreamingTests {
    /// Bytes this thread has passed to write(2) and its kin so far (/proc/thread-self/io,
    /// `wchar`): only this thread's, whatever other tests run beside it.
    static func threadWritten() throws -> Int {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("wchar:") })
        return try #require(Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)))
    }

    @Test("an 8 MiB message opens into the sink with nothing written on the way (it was spooled to a private file first: 8 MiB written twice)")
    func noSpool() throws {
        let password = Array("streamed".utf8)
        let plaintext = Crypto.randomBytes(count: 8 << 20)
        let message = try OpenPGPBuilder.message(password: password, plaintext: plaintext)
        let input = KindInput(bytes: message)
        let header = try OpenPGPKind.parseHeader(input)
        let (key, _, _) = try #require(try OpenPGPKind.firstUnlock(header, credentials: [.password(SecretBytes(password))]))
        let sink = MemoryPlaintext()
        let before = try Self.threadWritten()
        try OpenPGPKind.decryptBody(header, key: key, from: input, into: sink)
        let written = try Self.threadWritten() - before
        #expect(sink.bytes == plaintext)
        #expect(header.literal == LiteralData(name: Array("data".utf8), date: 0))
        #expect(written < 1 << 20, "\(written) bytes written to decrypt into memory")
    }

    @Test("a byte changed in the last MiB of an 8 MiB message (literal data, MDC): an MDC failure, and the sink is empty again")
    func tamperedLastChunk() throws {
        let password = Array("streamed".utf8)
        let plaintext = Crypto.randomBytes(count: 8 << 20)
        let message = try OpenPGPBuilder.message(password: password, plaintext: plaintext)
        for back in [1, 10, 22, 23, 100, 70_000, 1 << 20] {
            var copy = message
            copy[copy.count - back] ^= 0x20
            let (result, sunk) = openPGP(copy, [password])
            guard case .failure(.payload(let why)) = result else { Issue.record("\(back) from the end: \(result)"); continue }
            #expect(why.contains("modification detection code"), "\(back) from the end: \(why)")
            #expect(sunk == 0, "\(back) from the end: \(sunk) bytes left in the sink")
        }
    }

    @Test("a sink that fills up (line mode's limit) gives its error only once the MDC is checked: a changed message is an MDC failure")
    func fullSinkAfterMDC() throws {
        let password = Array("streamed".utf8)
        let message = try OpenPGPBuilder.message(password: password, plaintext: Crypto.randomBytes(count: 3 << 20))
        func open(_ bytes: [UInt8]) throws -> (KindError?, Int) {
            let input = KindInput(bytes: bytes)
            let header = try OpenPGPKind.parseHeader(input)
            let (key, _, _) = try #require(try OpenPGPKind.firstUnlock(header, credentials: [.password(SecretBytes(password))]))
            let sink = MemoryPlaintext(limit: 1 << 20)
            do { try OpenPGPKind.decryptBody(header, key: key, from: input, into: sink) } catch { return (error, sink.bytes.count) }
            return (nil, sink.bytes.count)
        }
        let (full, left) = try open(message)
        #expect(full == .tooLarge(limit: 1 << 20) && left == 0)
        var changed = message
        changed[changed.count - 5] ^= 1
        let (failed, leftAfter) = try open(changed)
        guard case .payload(let why) = failed else { Issue.record("\(String(describing: failed))"); return }
        #expect(why.contains("modification detection code") && leftAfter == 0)
    }
}

/// Small hand-made OpenPGP packets for the tests.
enum OpenPGPBuilder {
    /// A whole `gpg -c`-like message: a v4 SKESK (AES-256, iterated S2K, the S2K key is the
    /// session key) and a SEIPD v1 packet holding a literal data packet ("data", no date) of
    /// `plaintext` and its MDC.
    static func message(password: [UInt8], plaintext: [UInt8]) throws -> [UInt8] {
        try message(password: password, packets: packet(tag: 11, [0x62, 4] + Array("data".utf8) + [0, 0, 0, 0] + plaintext))
    }

    /// The same with `packets` (any packet stream) inside the SEIPD packet.
    static func message(password: [UInt8], packets: [UInt8]) throws -> [UInt8] {
        let s2k = OpenPGPS2K(mode: .iterated(Crypto.randomBytes(count: 8), count: 1024), hash: 8)
        let key = try s2k.derive(password: password, length: 32)
        var inner = Crypto.randomBytes(count: 16)
        inner += inner[14..<16]
        inner += packets + [0xD3, 0x14]
        let sha1 = try #require(OpenPGPDigest("SHA1"))
        sha1.update(inner)
        return skesk(cipher: 9, s2k: s2k) + packet(tag: 18, [1] + cfbEncrypt(key: key, inner + sha1.finish()))
    }

    /// A new-format packet with a fixed length.
    static func packet(tag: UInt8, _ body: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0xc0 | tag]
        switch body.count {
        case 0..<192: out.append(UInt8(body.count))
        case 192..<8384:
            let n = body.count - 192
            out += [UInt8(n >> 8 + 192), UInt8(n & 0xff)]
        default: out += [255] + withUnsafeBytes(of: UInt32(body.count).bigEndian) { Array($0) }
        }
        return out + body
    }

    /// A new-format packet in partial lengths of `part` bytes (a power of two), then a fixed rest.
    static func partialPacket(tag: UInt8, _ body: [UInt8], part: Int) -> [UInt8] {
        var out: [UInt8] = [0xc0 | tag]
        var rest = body[...]
        let exponent = UInt8(part.trailingZeroBitCount)
        while rest.count > part {
            out += [224 + exponent] + rest.prefix(part)
            rest = rest.dropFirst(part)
        }
        return out + packet(tag: 0, Array(rest)).dropFirst()
    }

    /// A v4 SKESK with an iterated or salted S2K.
    static func skesk(cipher: UInt8, s2k: OpenPGPS2K, encryptedKey: [UInt8] = []) -> [UInt8] {
        var body: [UInt8] = [4, cipher]
        switch s2k.mode {
        case .iterated(let salt, let count):
            // The count byte whose value is `count` (counts of the form (16 + c) << (e + 6)).
            let byte = (0...255).first { c in (16 + (c & 15)) << ((c >> 4) + 6) == count }!
            body += [3, s2k.hash] + salt + [UInt8(byte)]
        case .salted(let salt): body += [1, s2k.hash] + salt
        default: body += [0, s2k.hash]
        }
        return packet(tag: 3, body + encryptedKey)
    }

    /// CFB encryption with an IV of zeros (AES-256).
    static func cfbEncrypt(key: SecretBytes, _ plain: [UInt8]) -> [UInt8] {
        let ctx = EVP_CIPHER_CTX_new()
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: plain.count + 16)
        var written: Int32 = 0
        key.withUnsafeBytes { k in
            _ = EVP_EncryptInit_ex(ctx, EVP_aes_256_cfb128(), nil, k.baseAddress!.assumingMemoryBound(to: UInt8.self), [UInt8](repeating: 0, count: 16))
        }
        _ = EVP_EncryptUpdate(ctx, &out, &written, plain, Int32(plain.count))
        return Array(out.prefix(Int(written)))
    }
}

extension UInt8 {
    var isBase64Letter: Bool {
        (0x41...0x5a).contains(self) || (0x61...0x7a).contains(self) || (0x30...0x39).contains(self)
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}
