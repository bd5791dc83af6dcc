import Foundation
@testable import RWSecretKit
import Testing

/// The rules of the kinds that the peers' suites do not reach: limits, identity files, the
/// YAML shapes, detection among kinds, streaming through a descriptor into a private file.
@Suite("Kinds of message: limits, identities, YAML, detection, streaming")
struct KindRulesTests {
    /// An age header with one scrypt stanza of work factor `logN` (the MAC is not checked at parse time).
    static func scryptHeader(logN: String) -> [UInt8] {
        let salt = String(decoding: AgeEncoding.encodeRaw([UInt8](repeating: 7, count: 16)), as: UTF8.self)
        let body = String(decoding: AgeEncoding.encodeRaw([UInt8](repeating: 9, count: 32)), as: UTF8.self)
        let mac = String(decoding: AgeEncoding.encodeRaw([UInt8](repeating: 1, count: 32)), as: UTF8.self)
        return Array("age-encryption.org/v1\n-> scrypt \(salt) \(logN)\n\(body)\n--- \(mac)\n".utf8) + [UInt8](repeating: 0, count: 32)
    }

    @Test("an scrypt work factor over 22 is refused before any scrypt runs, with a clear error; 22 parses")
    func workFactorLimit() throws {
        for factor in ["23", "30", "64"] {
            #expect(throws: KindError.workFactorTooHigh(Int(factor)!)) { try AgeKind.parseHeader(KindInput(bytes: Self.scryptHeader(logN: factor))) }
        }
        #expect(throws: KindError.workFactorTooHigh(Int.max)) { try AgeKind.parseHeader(KindInput(bytes: Self.scryptHeader(logN: "123456789012345678901234567890"))) }
        #expect(KindError.workFactorTooHigh(23).description == "scrypt work factor 23 is above the limit of 22 (it would cost 2^23 iterations and 8 GiB of memory)")
        let header = try AgeKind.parseHeader(KindInput(bytes: Self.scryptHeader(logN: "22")))
        #expect(header.scrypt?.logN == 22)
        #expect(AgeKind.accepts(header, .password(SecretBytes(utf8: "x"))))
    }

    @Test("a wrong password costs one scrypt and is a wrong credential, not an error; identities are not tried against scrypt")
    func wrongPassword() throws {
        let header = try AgeKind.parseHeader(KindInput(bytes: Self.scryptHeader(logN: "10")))
        guard case .wrongCredential = try AgeKind.unlock(header, with: .password(SecretBytes(utf8: "wrong"))) else {
            Issue.record("a wrong password did not give wrongCredential")
            return
        }
        let identity = try #require(AgeX25519Identity(secretKey: SecretBytes(Crypto.randomBytes(count: 32))))
        guard case .notApplicable = try AgeKind.unlock(header, with: .ageX25519(identity)) else {
            Issue.record("an X25519 identity was tried against an scrypt stanza")
            return
        }
        #expect(try AgeKind.firstUnlock(header, credentials: [.ageX25519(identity), .password(SecretBytes(utf8: "a")), .password(SecretBytes(utf8: "b"))]) == nil)
    }

    @Test("identity files: comments and blank lines skipped; a post-quantum, plugin or malformed line is refused with its line number")
    func identityFiles() throws {
        let key = "AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0"
        let identities = try AgeX25519Identity.parseFile("# created: today\n# public key: age1…\n\n  \(key)  \r\n\(key)\n")
        #expect(identities.count == 2)
        #expect(throws: AgeX25519Identity.ParseError.unsupported(line: 2, type: "ML-KEM-768 + X25519 (post-quantum)")) {
            try AgeX25519Identity.parseFile("\(key)\nAGE-SECRET-KEY-PQ-1HZLGZUPT4ETPKDEV8HSGFDCYZ4E522W0A7PU2LHT8EH9W6YLNC3SW78XKG\n")
        }
        #expect(throws: AgeX25519Identity.ParseError.unsupported(line: 1, type: "plugin")) { try AgeX25519Identity.parseFile("AGE-PLUGIN-YUBIKEY-1QQQ\n") }
        #expect(throws: AgeX25519Identity.ParseError.malformed(line: 3)) { try AgeX25519Identity.parseFile("\(key)\n\n\(key.dropLast())Q\n") }
        #expect(throws: AgeX25519Identity.ParseError.malformed(line: 1)) { try AgeX25519Identity.parseFile(key.lowercased()) }
        #expect(throws: AgeX25519Identity.ParseError.empty) { try AgeX25519Identity.parseFile("# nothing\n") }
        // The error never carries the key.
        do {
            _ = try AgeX25519Identity.parseFile("\(key.dropLast())Q")
        } catch {
            #expect(!"\(error)".contains(key.dropLast()))
        }
    }

    @Test("!vault values: a list item, a quoted key, |- chomping, CRLF lines, a comment after the tag; other YAML has none")
    func yamlShapes() throws {
        let vault = "$ANSIBLE_VAULT;1.1;AES256\n  3061\n  3062"
        let yaml = """
        plain: value
        "quoted key": !vault |-
            $ANSIBLE_VAULT;1.1;AES256
            3061
            3062
        list:
          - !vault |   # a comment
            $ANSIBLE_VAULT;1.1;AES256
            3061

            3062
        not_vault: "!vault |"
        last: !vault |\r
          $ANSIBLE_VAULT;1.1;AES256\r
          3061\r
          3062\r

        """
        let values = AnsibleVaultKind.vaultValues(inYAML: Array(yaml.utf8))
        #expect(values.map(\.key) == ["quoted key", nil, "last"])
        #expect(values.map(\.line) == [2, 7, 13])
        #expect(values[0].text == Array(vault.replacingOccurrences(of: "  ", with: "").utf8))
        #expect(values[1].text == Array("$ANSIBLE_VAULT;1.1;AES256\n3061\n\n3062".utf8))
        #expect(AnsibleVaultKind.vaultValues(inYAML: Array("a: 1\nb: [2, 3]\nc: |\n  text\n".utf8)).isEmpty)
    }

    @Test("Ansible envelopes that are not 1.1/1.2 AES256, or not hex, are header errors before any key derivation")
    func ansibleEnvelope() {
        for text in ["$ANSIBLE_VAULT;1.0;AES\n3061", "$ANSIBLE_VAULT;1.1;AES128\n3061", "$ANSIBLE_VAULT;1.1\n3061",
                     "$ANSIBLE_VAULT;1.1;AES256\n30zz", "$ANSIBLE_VAULT;1.1;AES256\n306", "$ANSIBLE_VAULT;1.1;AES256\n3061"] {
            #expect(throws: KindError.self, "\(text)") { try AnsibleVaultKind.parse(Array(text.utf8)) }
        }
    }

    @Test("detection by content: each kind recognises its own and nothing else")
    func detection() {
        let samples: [(String, [UInt8], MessageKindName?)] = [
            ("age binary", Array("age-encryption.org/v1\n-> X25519".utf8), .age),
            ("age armored after blank lines", Array("\n  \n-----BEGIN AGE ENCRYPTED FILE-----\nYWdl".utf8), .age),
            ("Ansible Vault", Array("$ANSIBLE_VAULT;1.2;AES256;prod\n3031".utf8), .ansibleVault),
            ("RNCryptor v3 base64", Array("AwEAAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=".utf8), nil),
            ("RNCryptor v3 raw", [3, 1] + [UInt8](repeating: 0, count: 64), nil),
            ("OpenSSL enc", Array("Salted__12345678".utf8), nil),
            ("PGP armor", Array("-----BEGIN PGP MESSAGE-----\n".utf8), nil),
        ]
        for (name, bytes, kind) in samples {
            let prefix = ArraySlice(bytes)
            #expect(AgeKind.detect(prefix) == (kind == .age), "\(name)")
            #expect(AnsibleVaultKind.detect(prefix) == (kind == .ansibleVault), "\(name)")
        }
    }

    /// stream_258_chunks of the test kit (16.1 MiB of plaintext) read from a pipe, written to an
    /// unnamed private file: the whole file matches the kit's hash, in 64 KiB chunks.
    @Test("a large age file streams from a descriptor into a private file")
    func streamsIntoPrivateFile() throws {
        let vector = AgeTestKitVector.load("stream_258_chunks")
        let identity = try #require(AgeX25519Identity(vector.identities[0]))
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let writeEnd = fds[1]
        let writer = Thread {
            vector.file.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let n = write(writeEnd, raw.baseAddress! + done, raw.count - done)
                    if n <= 0 { break }
                    done += n
                }
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(fds[0]) }
        let folder = TemporaryFolder()
        let file = try PrivateFile(in: folder.path, needsName: false)
        let sink = PrivateFilePlaintext(file: file)
        _ = try AgeKind.decrypt(KindInput(FileDescriptorSource(fd: fds[0])), credentials: [.ageX25519(identity)], into: sink)
        var plaintext = [UInt8](repeating: 0, count: file.size)
        _ = try plaintext.withUnsafeMutableBytes { try file.read(at: 0, into: $0) }
        #expect(file.size > 257 * 64 * 1024)
        #expect(sha256Hex(plaintext) == vector.payloadSHA256)
    }
}

/// Several passwords tried at once against one scrypt stanza, decided in chain order.
@Suite("age scrypt: passwords tried in parallel within a memory budget")
struct AgeScryptBatchTests {
    /// The kit's scrypt vector: work factor 10 (1 MiB a try), passphrase "password".
    static let vector = AgeTestKitVector.load("scrypt")

    static func chain(_ secrets: [String]) -> [ChainPassword] {
        secrets.enumerated().map { ChainPassword(name: "p\($0.offset + 1)", secret: SecretBytes(utf8: $0.element)) }
    }

    @Test("up to jobs at once; the first right password in chain order wins, whatever finishes first")
    func chainOrder() throws {
        let passwords = Self.chain(["a", "b", "password", "c", "password", "d"])
        let sink = MemoryPlaintext()
        let opened = try MessageKinds.open(AgeKind.self, input: KindInput(bytes: Self.vector.file), passwords: passwords, identities: [],
                                           budget: TryBudget(jobs: 6, memory: 1 << 30), into: sink)
        guard case .password(let winner) = opened.openedBy else { Issue.record("not opened by a password"); return }
        #expect(winner.name == "p3")
        #expect(opened.tried == 3)
        #expect(opened.cost?.atOnce == 6 && opened.cost?.tries == 3)
        #expect(sha256Hex(sink.bytes) == Self.vector.payloadSHA256)
    }

    @Test("the memory budget bounds how many run at once; a wrong list tries every password once")
    func budget() throws {
        let perTry = AgeScryptBatch.memoryPerTry(logN: 10)
        #expect(perTry == 1 << 20)
        #expect(AgeScryptBatch(jobs: 8, memoryBudget: 2 * perTry + 1).atOnce(count: 10, logN: 10) == 2)
        #expect(AgeScryptBatch(jobs: 8, memoryBudget: 0).atOnce(count: 10, logN: 10) == 1)
        #expect(AgeScryptBatch(jobs: 3, memoryBudget: 1 << 40).atOnce(count: 10, logN: 22) == 3)
        #expect(AgeScryptBatch(jobs: 16, memoryBudget: 8 << 30).atOnce(count: 10, logN: 22) == 2, "4 GiB a try at work factor 22")
        do {
            _ = try MessageKinds.open(AgeKind.self, input: KindInput(bytes: Self.vector.file), passwords: Self.chain(["a", "b", "c", "d", "e"]),
                                      identities: [], budget: TryBudget(jobs: 4, memory: 2 * perTry), into: MemoryPlaintext())
            Issue.record("opened with wrong passwords")
        } catch {
            #expect(error.error == .noMatch(["scrypt"]))
            #expect(error.tried == 5)
        }
    }
}

/// A kind that fails after it has written verified chunks (age's STREAM: every chunk before a
/// tampered last one checks out) leaves nothing in its sink: `MessageKinds.open` discards it.
@Suite("a failed message leaves its sink empty, whatever the kind")
struct FailedSinkTests {
    @Test("age, 200 KiB (4 chunks), a byte of the last chunk changed: the error, and 0 bytes in the sink")
    func ageLastChunk() throws {
        let plaintext = (0..<(200 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let encryptor = AgeEncryptor(password: SecretBytes(utf8: "pw"), workFactor: 10, armor: false)
        var file = encryptor.update(plaintext) + encryptor.finalize()
        file[file.count - 20] ^= 0x01
        let sink = MemoryPlaintext()
        do {
            _ = try MessageKinds.open(AgeKind.self, input: KindInput(bytes: file), passwords: [ChainPassword(name: "p", secret: SecretBytes(utf8: "pw"))],
                                      identities: [], budget: .oneAtATime, into: sink)
            Issue.record("a tampered age file opened")
        } catch {
            #expect(error.tried == 1)
        }
        #expect(sink.bytes.isEmpty, "\(sink.bytes.count) bytes of the verified chunks before the tampered one stayed in the sink")
    }
}

@Suite("Ansible Vault's unhexlify: line ends only where the vault's lines allow them")
struct UnhexlifyTests {
    @Test("CR and LF are skipped between a vault's lines, refused inside a part, as Python's binascii.unhexlify refuses them")
    func lineEnds() {
        #expect(AnsibleVaultKind.unhexlify(Array("41\n42\r\n43".utf8)[...], skippingLineEnds: true) == [0x41, 0x42, 0x43])
        #expect(AnsibleVaultKind.unhexlify(Array("41\n42".utf8)[...]) == nil)
        #expect(AnsibleVaultKind.unhexlify(Array("41\r42".utf8)[...]) == nil)
        #expect(AnsibleVaultKind.unhexlify(Array("4142".utf8)[...]) == [0x41, 0x42])
    }
}
