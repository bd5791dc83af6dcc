import Foundation
@testable import RWSecretKit
import Testing

/// LibrePGP's AEAD form (SKESK v5 and tag 20, as gpg 2.4 writes it): Fixtures/kinds/openpgp-librepgp,
/// made by rnp (scripts/generate-librepgp-fixtures.py), and messages rnp makes at each run.
@Suite("OpenPGP: LibrePGP's AEAD form (SKESK v5, tag 20) in OCB and EAX")
struct OpenPGPLibrePGPTests {
    static let manifest: [OpenPGPFixture] = Fixtures.text("kinds/openpgp-librepgp/manifest.tsv").split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
        let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return OpenPGPFixture(file: f[0], secret: Hex.decode(f[1]), refusal: f[2].hasPrefix("refused:") ? String(f[2].dropFirst(8)) : nil,
                              sha256: f[3], plaintext: Hex.decode(f[4]), literalName: f[5] == "-" ? nil : f[5])
    }

    static func bytes(_ file: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: Fixtures.directory.appendingPathComponent("kinds/openpgp-librepgp/\(file)").path) ?? Data())
    }

    @Test("each fixture opens with its passphrase as the second of the chain (tried 2), or gets its one error", arguments: manifest.map(\.file))
    func opens(_ file: String) throws {
        let fixture = try #require(Self.manifest.first { $0.file == file })
        let message = Self.bytes(file)
        #expect(MessageKinds.detect(ArraySlice(message.prefix(detectionLength))) == OpenPGPKind.self)
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: message))
        #expect(header.v2?.librePGPIV != nil && header.skesks.allSatisfy { $0.version == 5 })
        #expect(header.v2?.mode.name == (file.hasPrefix("eax") ? "EAX" : "OCB"))
        let (result, sunk) = openPGP(message, [Array("wrong".utf8), try #require(fixture.secret)])
        if let refusal = fixture.refusal {
            guard case .failure(let error) = result else { Issue.record("opened"); return }
            #expect("\(error)".contains(refusal), "\(error)")
            #expect(sunk == 0)
            return
        }
        let opened = try result.get()
        #expect(opened.plaintext == fixture.plaintext && opened.index == 1 && opened.tried == 2)
        #expect(opened.name.map { String(decoding: $0, as: UTF8.self) } == fixture.literalName)
    }

    /// Fixtures/kinds/openpgp-librepgp-keys: tag 20 after a PKESK v3 (rnp -e --aead=ocb|eax to
    /// gpg-made RSA and cv25519 keys; scripts/generate-librepgp-key-fixtures.py).
    static let keyManifest: [(file: String, key: String, plaintext: [UInt8])] = Fixtures.text("kinds/openpgp-librepgp-keys/manifest.tsv")
        .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return (f[0], f[1], Hex.decode(f[3]))
        }

    static func keyFixture(_ file: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: Fixtures.directory.appendingPathComponent("kinds/openpgp-librepgp-keys/\(file)").path) ?? Data())
    }

    @Test("a LibrePGP AEAD packet after a PKESK v3 (gpg 2.4 to a key that announces AEAD; made by rnp): the key opens it; every byte changed releases nothing",
          arguments: keyManifest.map(\.file))
    func opensWithKey(_ file: String) throws {
        let fixture = try #require(Self.keyManifest.first { $0.file == file })
        let message = Self.keyFixture(file)
        let key = try #require(try OpenPGPTransferableKey.parse(Self.keyFixture(fixture.key), secret: true).first)
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: message))
        #expect(header.v2?.librePGPIV != nil && header.skesks.isEmpty && header.pkesks.count == 1 && header.pkesks[0].version == 3)
        #expect(header.v2?.mode.name == (file.contains("eax") ? "EAX" : "OCB"))
        let opened = try Peers.open(OpenPGPKind.self, message, [.openPGPKey(key)]).get()
        #expect(opened.plaintext == fixture.plaintext && opened.tried == 1)
        guard !file.hasSuffix(".asc") else { return }
        // Byte 13 of a cv25519 message is the low byte of the ephemeral point's MPI bit count
        // (263): 262 still reads as 33 bytes, the same point, and the message opens (gpg reads
        // it so too); the PKESK is not what authenticates a message.
        for index in message.indices where !(file.hasPrefix("cv25519") && index == 13) {
            var copy = message
            copy[index] ^= 0x01
            let sink = MemoryPlaintext()
            #expect(throws: KindError.self, "byte \(index) changed, still opened") {
                _ = try OpenPGPKind.decrypt(KindInput(bytes: copy), credentials: [.openPGPKey(key)], into: sink)
            }
            #expect(sink.bytes.isEmpty)
        }
    }

    @Test("every byte of the binary OCB and EAX messages changed, and every prefix: an error (or a wrong password), nothing released",
          arguments: ["ocb.pgp", "eax.pgp"])
    func tampered(_ file: String) throws {
        let message = Self.bytes(file)
        let secret = try #require(Self.manifest.first { $0.file == file }?.secret)
        for index in message.indices {
            var copy = message
            copy[index] ^= 0x01
            let (result, sunk) = openPGP(copy, [secret])
            #expect(!result.isSuccess && sunk == 0, "byte \(index): \(result)")
        }
        for length in 0..<message.count {
            let (result, sunk) = openPGP(Array(message.prefix(length)), [secret])
            #expect(!result.isSuccess && sunk == 0, "\(length) bytes: \(result)")
        }
        // A change in the chunk or final tag names the packet and its mode.
        var copy = message
        copy[copy.count - 20] ^= 0x01
        guard case .failure(.payload(let why)) = openPGP(copy, [secret]).result else { Issue.record("not a payload error"); return }
        #expect(why.contains("LibrePGP AEAD \(file.hasPrefix("eax") ? "EAX" : "OCB")"), "\(why)")
    }

    /// rnp, with the passphrase on descriptor 3 from a 0600 file (never argv).
    static func rnp(_ options: [String], passphrase: String, stdin: [UInt8], in folder: TemporaryFolder) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let rnp = try #require(Peers.find("rnp"), "rnp is not installed (apt-get install rnp)")
        let file = folder.file("passphrase", passphrase + "\n")
        chmod(file, 0o600)
        let command = ([rnp, "--homedir", folder.path + "/rnp", "--pass-fd", "3"] + options).map { "'\($0)'" }.joined(separator: " ") + " 3<'\(file)'"
        return try Peers.run(["/bin/sh", "-c", command], input: stdin, in: folder)
    }

    @Test("rnp's messages of several chunks (256 KiB each) open; a byte changed in any chunk or tag releases nothing",
          .enabled(if: Peers.find("rnp") != nil, "rnp is not installed"), arguments: ["ocb", "eax"])
    func chunks(_ mode: String) throws {
        let folder = TemporaryFolder()
        let plaintext = Peers.plaintext(600_000)
        let made = try Self.rnp(["-c", "--aead=\(mode)", "-z", "0", "--output", "-", "-"], passphrase: "chunks ✓", stdin: plaintext, in: folder)
        try #require(made.status == 0, "rnp failed: \(made.stderr)")
        let message = made.stdout
        let secret = Array("chunks ✓".utf8)
        let opened = try openPGP(message, [secret]).result.get()
        #expect(opened.plaintext == plaintext)
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: message))
        let chunk = try #require(header.v2).chunkSize
        #expect(chunk == 1 << 18)
        for back in [1, 17, 40, 300_000] {
            var copy = message
            copy[copy.count - back] ^= 0x80
            let (result, sunk) = openPGP(copy, [secret])
            #expect(!result.isSuccess && sunk == 0, "\(back) from the end: \(result)")
        }
    }
}
