import Foundation
@testable import RWSecretKit
import Testing

/// OpenPGP secret keys and messages to them, made fresh at every run by Debian's gpg 2.2 in a
/// private GNUPGHOME: RSA 3072, Curve25519 (cv25519) and NIST P-256/384/521 encryption subkeys,
/// unprotected and protected keys, one and several recipients, with a password beside them.
@Suite("OpenPGP secret keys and PKESK messages made by gpg 2.2", .serialized)
struct OpenPGPKeyPeerTests {
    let folder = TemporaryFolder()

    var home: String { folder.path + "/gnupg" }

    /// gpg with the private home; the passphrase (when given) on descriptor 3 from a 0600 file.
    func gpg(_ options: [String], passphrase: String? = nil, stdin: [UInt8] = []) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let gpg = try #require(Peers.find("gpg"), "gpg is not installed: `make deps` (or apt-get install gnupg) installs it")
        if !FileManager.default.fileExists(atPath: home) {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var fd = ""
        if let passphrase {
            let file = folder.file("passphrase", passphrase)
            chmod(file, 0o600)
            fd = " 3<'\(file)'"
        }
        let command = ([gpg, "--homedir", home, "--batch", "--yes", "--trust-model", "always", "--pinentry-mode", "loopback"]
                       + (passphrase == nil ? ["--passphrase", ""] : ["--passphrase-fd", "3"]) + options)
            .map { "'\($0)'" }.joined(separator: " ") + fd
        return try Peers.run(["/bin/sh", "-c", command], input: stdin, in: folder)
    }

    /// Makes a key: a signing primary of `primary` and an encryption subkey of `subkey`; its fingerprint.
    func makeKey(_ name: String, primary: String, subkey: String, passphrase: String? = nil) throws -> String {
        let made = try gpg(["--quick-gen-key", "\(name) <\(name.lowercased())@example.org>", primary, "sign", "never"], passphrase: passphrase)
        try #require(made.status == 0, "gpg failed: \(made.stderr)")
        let list = try gpg(["--list-keys", "--with-colons", "\(name.lowercased())@example.org"])
        let fingerprint = try #require(String(decoding: list.stdout, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("fpr:") }?
            .split(separator: ":", omittingEmptySubsequences: false)[9])
        let added = try gpg(["--quick-add-key", String(fingerprint), subkey, "encr", "never"], passphrase: passphrase)
        try #require(added.status == 0, "gpg failed: \(added.stderr)")
        return String(fingerprint)
    }

    func exportSecret(_ fingerprint: String, armor: Bool, passphrase: String? = nil) throws -> [UInt8] {
        let exported = try gpg((armor ? ["--armor"] : []) + ["--export-secret-keys", fingerprint], passphrase: passphrase)
        try #require(exported.status == 0 && !exported.stdout.isEmpty, "gpg failed: \(exported.stderr)")
        return exported.stdout
    }

    func encrypt(to fingerprints: [String], _ plaintext: [UInt8], extra: [String] = [], passphrase: String? = nil) throws -> [UInt8] {
        let made = try gpg(fingerprints.flatMap { ["-r", $0] } + extra + ["--encrypt", "-o", "-"], passphrase: passphrase, stdin: plaintext)
        try #require(made.status == 0, "gpg failed: \(made.stderr)")
        return made.stdout
    }

    func stopAgent() {
        guard let gpgconf = Peers.find("gpgconf") else { return }
        _ = try? Peers.run([gpgconf, "--homedir", home, "--kill", "gpg-agent"], in: folder)
    }

    struct Algorithm: CustomTestStringConvertible, Sendable {
        let primary: String
        let subkey: String
        var testDescription: String { subkey }
    }

    static let algorithms = [
        Algorithm(primary: "rsa3072", subkey: "rsa3072"),
        Algorithm(primary: "ed25519", subkey: "cv25519"),
        Algorithm(primary: "nistp256", subkey: "nistp256"),
        Algorithm(primary: "nistp384", subkey: "nistp384"),
        Algorithm(primary: "nistp521", subkey: "nistp521"),
    ]

    @Test("a key is read (fingerprint, user ID, its encryption subkey) and opens gpg -e messages to it; tampered copies release nothing",
          arguments: algorithms)
    func opensMessages(_ algorithm: Algorithm) throws {
        defer { stopAgent() }
        let fingerprint = try makeKey("Alice", primary: algorithm.primary, subkey: algorithm.subkey)
        let keys = try OpenPGPTransferableKey.parse(exportSecret(fingerprint, armor: true), secret: true)
        try #require(keys.count == 1)
        let key = keys[0]
        #expect(key.fingerprintHex == fingerprint)
        #expect(key.userID == "Alice <alice@example.org>")
        #expect(key.decryptionKeys.count == 1 && key.decryptionKeys[0].isSubkey)
        #expect(!key.wasProtected)
        let binary = try OpenPGPTransferableKey.parse(exportSecret(fingerprint, armor: false), secret: true)
        #expect(binary[0].fingerprintHex == fingerprint)
        for size in [0, 1, 70_000] {
            let plaintext = Peers.plaintext(size)
            let message = try encrypt(to: [fingerprint], plaintext, extra: size == 1 ? ["--armor"] : [])
            let opened = try Peers.open(OpenPGPKind.self, message, [.openPGPKey(key)]).get()
            #expect(opened.plaintext == plaintext && opened.index == 0 && opened.tried == 1)
            if size == 70_000 {
                for (position, copy) in Peers.tampered(message, count: 6) {
                    let sink = MemoryPlaintext()
                    #expect(throws: KindError.self, "byte \(position) changed, still opened") {
                        _ = try OpenPGPKind.decrypt(KindInput(bytes: copy), credentials: [.openPGPKey(key)], into: sink)
                    }
                    #expect(sink.bytes.isEmpty)
                }
            }
        }
    }

    @Test("a protected key (S2K usage 254, iterated SHA-1, gpg's export) is read with its passphrase only; a wrong one is said so")
    func protectedKey() throws {
        defer { stopAgent() }
        let passphrase = Peers.randomPassword(unicode: true)
        let fingerprint = try makeKey("Bob", primary: "ed25519", subkey: "cv25519", passphrase: passphrase)
        let exported = try exportSecret(fingerprint, armor: true, passphrase: passphrase)
        #expect(throws: OpenPGPKeyError.needsPassphrase) { try OpenPGPTransferableKey.parse(exported, secret: true) }
        #expect(throws: OpenPGPKeyError.wrongPassphrase) {
            try OpenPGPTransferableKey.parse(exported, secret: true, passphrase: { SecretBytes(utf8: passphrase + "x") })
        }
        var asked = 0
        let key = try OpenPGPTransferableKey.parse(exported, secret: true, passphrase: { asked += 1; return SecretBytes(utf8: passphrase) })[0]
        #expect(asked == 1 && key.wasProtected)
        let message = try encrypt(to: [fingerprint], Array("to bob\n".utf8))
        #expect(try Peers.open(OpenPGPKind.self, message, [.openPGPKey(key)]).get().plaintext == Array("to bob\n".utf8))
        // The unprotected form is what the store keeps: it reads again with no passphrase, and gpg imports it.
        let again = try OpenPGPTransferableKey.parse(key.unprotected!.withUnsafeBytes { Array($0) }, secret: true)[0]
        #expect(again.fingerprintHex == fingerprint && !again.wasProtected)
        #expect(try Peers.open(OpenPGPKind.self, message, [.openPGPKey(again)]).get().plaintext == Array("to bob\n".utf8))
        let other = folder.path + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = folder.file("unprotected.gpg", bytes: again.unprotected!.withUnsafeBytes { Array($0) })
        let gpgPath = try #require(Peers.find("gpg"))
        let imported = try Peers.run([gpgPath, "--homedir", other, "--batch", "--import", file], in: folder)
        #expect(imported.status == 0 && imported.stderr.contains("secret keys imported: 1"), "\(imported.stderr)")
        let decrypted = try Peers.run([gpgPath, "--homedir", other, "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "-d", folder.file("m.gpg", bytes: message)], in: folder)
        #expect(decrypted.stdout == Array("to bob\n".utf8), "\(decrypted.stderr)")
        _ = try? Peers.run([Peers.find("gpgconf")!, "--homedir", other, "--kill", "gpg-agent"], in: folder)
    }

    @Test("several recipients and a password: each key opens it alone; another key is not applicable (no try counted); the key IDs are said")
    func severalRecipients() throws {
        defer { stopAgent() }
        let alice = try makeKey("Alice", primary: "rsa3072", subkey: "rsa3072")
        let carol = try makeKey("Carol", primary: "ed25519", subkey: "cv25519")
        let dave = try makeKey("Dave", primary: "nistp256", subkey: "nistp256")
        let aliceKey = try OpenPGPTransferableKey.parse(exportSecret(alice, armor: false), secret: true)[0]
        let carolKey = try OpenPGPTransferableKey.parse(exportSecret(carol, armor: false), secret: true)[0]
        let daveKey = try OpenPGPTransferableKey.parse(exportSecret(dave, armor: false), secret: true)[0]
        let message = try encrypt(to: [alice, carol], Array("both\n".utf8), extra: ["--symmetric", "--s2k-count", "65536"], passphrase: "pw")
        for key in [aliceKey, carolKey] {
            #expect(try Peers.open(OpenPGPKind.self, message, [.openPGPKey(daveKey), .openPGPKey(key)]).get().tried == 1)
        }
        #expect(try Peers.open(OpenPGPKind.self, message, [.openPGPKey(daveKey), .password(SecretBytes(utf8: "pw"))]).get().index == 1)
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: message))
        let ids = OpenPGPKind.describeNoMatch(header)
        #expect(Set(ids) == Set([aliceKey.decryptionKeys[0].keyID, carolKey.decryptionKeys[0].keyID].map { OpenPGPKeyFile.hex($0) }))
        guard case .failure(.noMatch(let said)) = Peers.open(OpenPGPKind.self, message, [.openPGPKey(daveKey)]) else {
            Issue.record("opened by another key")
            return
        }
        #expect(said == ids)
    }

    @Test("a public key is not a secret key; garbage and cut keys are one clear error")
    func badKeys() throws {
        defer { stopAgent() }
        let fingerprint = try makeKey("Erin", primary: "ed25519", subkey: "cv25519")
        let exported = try gpg(["--export", fingerprint])
        #expect(throws: OpenPGPKeyError.self) { try OpenPGPTransferableKey.parse(exported.stdout, secret: true) }
        let secret = try exportSecret(fingerprint, armor: false)
        for cut in [1, 10, secret.count / 2, secret.count - 1] {
            #expect(throws: OpenPGPKeyError.self) { try OpenPGPTransferableKey.parse(Array(secret.prefix(cut)), secret: true) }
        }
        #expect(throws: OpenPGPKeyError.self) { try OpenPGPTransferableKey.parse(Array("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nAAAA\n".utf8), secret: true) }
    }
}

/// Keys and messages made by Sequoia's sq 0.27 (`sq key generate`, `sq encrypt`), fresh at
/// every run: its cv25519 and RSA 3072 keys, binary, unprotected (`--with-password` asks on a
/// terminal). `--compression none`: sq's default pads after the deflate stream, which is
/// another reader tolerance (issue 34 item 4).
@Suite("sq 0.27 keys and messages", .serialized)
struct OpenPGPSequoiaKeyTests {
    let folder = TemporaryFolder()

    @Test("sq key generate's key opens sq encrypt's message to its certificate", arguments: ["cv25519", "rsa3k"])
    func sqRoundTrip(_ suite: String) throws {
        let sq = try #require(Peers.find("sq"), "sq is not installed: `make deps` (or apt-get install sq) installs it")
        let key = folder.path + "/key-\(suite).pgp"
        let cert = folder.path + "/cert-\(suite).pgp"
        let made = try Peers.run([sq, "key", "generate", "--userid", "<sq@example.org>", "-c", suite, "--export", key], in: folder)
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try Peers.run([sq, "key", "extract-cert", key, "-o", cert], in: folder).status == 0)
        let plaintext = Peers.plaintext(3000)
        let message = try Peers.run([sq, "encrypt", "--compression", "none", "--recipient-cert", cert], input: plaintext, in: folder)
        try #require(message.status == 0, "\(message.stderr)")
        let parsed = try OpenPGPTransferableKey.parse(Array(try Data(contentsOf: URL(fileURLWithPath: key))), secret: true)[0]
        #expect(parsed.userID == "<sq@example.org>" && parsed.usableDecryptionKeys.count == 1)
        #expect(try Peers.open(OpenPGPKind.self, message.stdout, [.openPGPKey(parsed)]).get().plaintext == plaintext)
    }
}

/// RFC 9580 appendix A's v6 key (A.3/A.4: Ed25519 primary, X25519 subkey; A.5: the same locked
/// with Argon2 and AEAD-OCB, S2K usage 253) and its X25519 message (A.8: PKESK v6, SEIPD v2
/// OCB), as the RFC prints them (Fixtures/kinds/openpgp-rfc9580).
@Suite("RFC 9580 appendix A: the v6 sample key and its X25519 message")
struct OpenPGPRFC9580KeyTests {
    static func fixture(_ name: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: Fixtures.directory.appendingPathComponent("kinds/openpgp-rfc9580/" + name).path) ?? Data())
    }

    @Test("A.4: the fingerprints the RFC states (v6, SHA-256); A.8 opens to \"Hello, world!\"; tampered copies release nothing")
    func unlockedKey() throws {
        let key = try OpenPGPTransferableKey.parse(Self.fixture("a4-v6-secret-key.asc"), secret: true)[0]
        #expect(key.fingerprintHex == "CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9")
        #expect(key.usableDecryptionKeys.map { OpenPGPKeyFile.hex($0.fingerprint) } == ["12C83F1E706F6308FE151A417743A1F033790E93E9978488D1DB378DA9930885"])
        #expect(key.primary.version == 6 && key.userID == nil && !key.wasProtected)
        let message = Self.fixture("a8-v6pkesk-x25519-ocb.asc")
        #expect(try Peers.open(OpenPGPKind.self, message, [.openPGPKey(key)]).get().plaintext == Array("Hello, world!".utf8))
        for (position, copy) in Peers.tampered(message, count: 20) where message[position].isLetter64 {
            let sink = MemoryPlaintext()
            if let result = try? OpenPGPKind.decrypt(KindInput(bytes: copy), credentials: [.openPGPKey(key)], into: sink), sink.bytes == Array("Hello, world!".utf8) {
                _ = result
                continue  // a change the armor decodes away
            }
            #expect(sink.bytes.isEmpty, "byte \(position) changed, something released")
        }
    }

    @Test("A.5: the locked key (S2K usage 253, Argon2, OCB) reads with \"correct horse battery staple\" and opens A.8")
    func lockedKey() throws {
        let locked = Self.fixture("a5-v6-secret-key-locked.asc")
        // One Argon2 derivation of 2 GiB: the wrong passphrase (an AEAD tag that fails, as for
        // usage 254's SHA-1) is checked on gpg's keys above, which cost less.
        let key = try OpenPGPTransferableKey.parse(locked, secret: true, passphrase: { SecretBytes(utf8: "correct horse battery staple") })[0]
        #expect(key.wasProtected && key.fingerprintHex == "CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9")
        #expect(try Peers.open(OpenPGPKind.self, Self.fixture("a8-v6pkesk-x25519-ocb.asc"), [.openPGPKey(key)]).get().plaintext == Array("Hello, world!".utf8))
        // Unprotected, it is byte for byte A.4's key.
        let unlocked = try OpenPGPTransferableKey.parse(Self.fixture("a4-v6-secret-key.asc"), secret: true)[0]
        #expect(key.unprotected!.isEqual(to: unlocked.unprotected!))
    }
}

extension UInt8 {
    /// A base64 letter (a changed one changes the decoded bytes).
    fileprivate var isLetter64: Bool {
        (0x41...0x5a).contains(self) || (0x61...0x7a).contains(self) || (0x30...0x39).contains(self) || self == 0x2b || self == 0x2f
    }
}
