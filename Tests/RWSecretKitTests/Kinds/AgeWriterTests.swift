import Foundation
@testable import RWSecretKit
import Testing

/// Keys made by the peers themselves, fresh at every run: an age-keygen identity, and
/// ssh-keygen's Ed25519 and RSA keys (unencrypted).
final class PeerKeys {
    let folder = TemporaryFolder()
    let identityFile: String
    let recipient: String
    let ed25519: String
    let rsa: String

    init() throws {
        let keygen = try #require(Peers.find("age-keygen"), "age-keygen is not installed: `make deps` (or apt-get install age) installs it")
        let sshKeygen = try #require(Peers.find("ssh-keygen"), "ssh-keygen is not installed: `make deps` (or apt-get install openssh-client) installs it")
        identityFile = folder.path + "/identity.txt"
        try #require(try Peers.run([keygen, "-o", identityFile], in: folder).status == 0)
        let publicKey = try Peers.run([keygen, "-y", identityFile], in: folder)
        recipient = String(decoding: publicKey.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        ed25519 = folder.path + "/id_ed25519"
        rsa = folder.path + "/id_rsa"
        for (type, path) in [("ed25519", ed25519), ("rsa", rsa)] {
            let made = try Peers.run([sshKeygen, "-q", "-t", type] + (type == "rsa" ? ["-b", "2048"] : []) + ["-N", "", "-C", "test", "-f", path], in: folder)
            try #require(made.status == 0, "ssh-keygen: \(made.stderr)")
        }
    }

    func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
}

/// A recipient that writes a stanza of a type nobody knows (age's "grease").
struct GreaseRecipient: AgeRecipient {
    var text: String { "grease" }
    func wrap(fileKey _: SecretBytes) throws(AgeRecipientError) -> AgeKind.Stanza {
        AgeKind.Stanza(type: "grease-\(Int.random(in: 0...999))", arguments: ["x,y", "Z"], body: Crypto.randomBytes(count: Int.random(in: 0...100)))
    }
}

@Suite("the age writer: rwsecret's files opened by age 1.1, age's opened by rwsecret", .serialized)
struct AgeWriterTests {
    let folder = TemporaryFolder()

    static func encrypt(_ plaintext: [UInt8], to recipients: [any AgeRecipient], armor: Bool) throws -> [UInt8] {
        let encryptor = try AgeEncryptor(recipients: recipients, armor: armor)
        var out: [UInt8] = []
        // Fed in uneven pieces, so chunk and armor-line boundaries fall anywhere.
        var offset = 0
        while offset < plaintext.count {
            let n = min(plaintext.count - offset, Int.random(in: 1...100_000))
            out += encryptor.update(plaintext[offset..<offset + n])
            offset += n
        }
        return out + encryptor.finalize()
    }

    /// Runs `age -d -i IDENTITY` on `message`.
    func ageDecrypt(_ message: [UInt8], identity: String) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let age = try #require(Peers.find("age"))
        let path = folder.file("message-\(UUID().uuidString).age", bytes: message)
        return try Peers.run([age, "-d", "-i", identity, path], in: folder)
    }

    @Test("Bech32: the recipient of an age-keygen identity is what age-keygen -y prints; the identity round-trips")
    func bech32() throws {
        let keys = try PeerKeys()
        let identity = try AgeX25519Identity.parseFile(keys.text(keys.identityFile))[0]
        #expect(identity.recipient == keys.recipient)
        let text = try #require(identity.secretKeyText.decodedUTF8())
        #expect(keys.text(keys.identityFile).contains(text))
        let generated = AgeX25519Identity.generate()
        let generatedText = try #require(generated.secretKeyText.decodedUTF8())
        let again = try #require(AgeX25519Identity(generatedText))
        #expect(again.recipient == generated.recipient)
        #expect(try (AgeRecipients.parse(generated.recipient) as? AgeX25519Recipient)?.publicKey == generated.publicKey)
    }

    @Test("age -d opens what rwsecret writes to each recipient type, armored and not, several recipients at once, and a grease stanza",
          arguments: [(size: 0, armor: false), (size: 1, armor: true), (size: 65536, armor: false), (size: 65537, armor: true), (size: 200_000, armor: false)])
    func ageOpensOurs(_ form: (size: Int, armor: Bool)) throws {
        let keys = try PeerKeys()
        let plaintext = Peers.plaintext(form.size)
        let recipients: [any AgeRecipient] = [
            GreaseRecipient(),
            try AgeRecipients.parse(keys.recipient),
            try AgeRecipients.parse(keys.text(keys.ed25519 + ".pub")),
            try AgeRecipients.parse(keys.text(keys.rsa + ".pub")),
        ]
        let message = try Self.encrypt(plaintext, to: recipients, armor: form.armor)
        #expect(message.starts(with: Array((form.armor ? "-----BEGIN AGE ENCRYPTED FILE-----\n" : "age-encryption.org/v1\n").utf8)))
        for identity in [keys.identityFile, keys.ed25519, keys.rsa] {
            let opened = try ageDecrypt(message, identity: identity)
            #expect(opened.status == 0, "age -d -i \(identity): \(opened.stderr)")
            #expect(opened.stdout == plaintext)
        }
        // And rwsecret itself, with each kind of identity.
        let ssh = try AgeSSHIdentity(openSSH: keys.text(keys.ed25519))
        let rsa = try AgeSSHIdentity(openSSH: keys.text(keys.rsa))
        let x25519 = try AgeX25519Identity.parseFile(keys.text(keys.identityFile))[0]
        for credential in [RWSecretKit.Credential.ageSSH(ssh), .ageSSH(rsa), .ageX25519(x25519)] {
            guard case .success(let opened) = Peers.open(AgeKind.self, message, [credential]) else {
                Issue.record("rwsecret did not open its own file")
                continue
            }
            #expect(opened.plaintext == plaintext)
        }
    }

    @Test("rwsecret opens what age writes to age-keygen and ssh-keygen keys (-r, -R, armored and not)", arguments: [false, true])
    func weOpenAges(_ armor: Bool) throws {
        let keys = try PeerKeys()
        let age = try #require(Peers.find("age"))
        let plaintext = Peers.plaintext(100_000)
        let input = folder.file("plain", bytes: plaintext)
        let output = folder.path + "/from-age.age"
        let made = try Peers.run([age] + (armor ? ["-a"] : []) + ["-r", keys.recipient, "-R", keys.ed25519 + ".pub", "-R", keys.rsa + ".pub", "-o", output, input], in: folder)
        try #require(made.status == 0, "age: \(made.stderr)")
        let message = Array(FileManager.default.contents(atPath: output) ?? Data())
        let credentials: [RWSecretKit.Credential] = [
            .ageX25519(try AgeX25519Identity.parseFile(keys.text(keys.identityFile))[0]),
            .ageSSH(try AgeSSHIdentity(openSSH: keys.text(keys.ed25519))),
            .ageSSH(try AgeSSHIdentity(openSSH: keys.text(keys.rsa))),
        ]
        for credential in credentials {
            switch Peers.open(AgeKind.self, message, [credential]) {
            case .success(let opened): #expect(opened.plaintext == plaintext)
            case .failure(let error): Issue.record("\(error)")
            }
        }
        // A key the file is not for: no match, nothing released.
        let other = try PeerKeys()
        guard case .failure(.noMatch(let types)) = Peers.open(AgeKind.self, message, [.ageSSH(try AgeSSHIdentity(openSSH: other.text(other.ed25519)))]) else {
            Issue.record("a stranger's key opened the file")
            return
        }
        #expect(types == ["X25519", "ssh-ed25519", "ssh-rsa"])
    }

    @Test("tampered headers and payloads of rwsecret's files release nothing (to X25519, ssh-ed25519, ssh-rsa)")
    func tampered() throws {
        let keys = try PeerKeys()
        let plaintext = Peers.plaintext(70_000)
        let credentials: [RWSecretKit.Credential] = [
            .ageX25519(try AgeX25519Identity.parseFile(keys.text(keys.identityFile))[0]),
            .ageSSH(try AgeSSHIdentity(openSSH: keys.text(keys.ed25519))),
            .ageSSH(try AgeSSHIdentity(openSSH: keys.text(keys.rsa))),
        ]
        let recipients = [keys.recipient, keys.text(keys.ed25519 + ".pub"), keys.text(keys.rsa + ".pub")]
        for (recipient, credential) in zip(recipients, credentials) {
            let message = try Self.encrypt(plaintext, to: [try AgeRecipients.parse(recipient)], armor: false)
            for (position, copy) in Peers.tampered(message, count: 40) {
                if case .success = Peers.open(AgeKind.self, copy, [credential]) {
                    Issue.record("a copy changed at byte \(position) of \(message.count) opened")
                }
            }
            // Cut short, or with a byte more: nothing either.
            for copy in [Array(message.dropLast(1)), Array(message.prefix(message.count - 17)), message + [0]] {
                if case .success = Peers.open(AgeKind.self, copy, [credential]) { Issue.record("a cut or lengthened copy opened") }
            }
        }
    }

    @Test("low-order X25519 points: refused as a recipient, and as an ssh-ed25519 stanza's share")
    func lowOrder() throws {
        // u = 0 and u = 1 are of low order: no shared secret comes of them.
        for u: UInt8 in [0, 1] {
            let recipient = try AgeX25519Recipient(publicKey: [u] + [UInt8](repeating: 0, count: 31))
            #expect(throws: AgeRecipientError.lowOrder) { _ = try recipient.wrap(fileKey: SecretBytes(Crypto.randomBytes(count: 16))) }
            let text = AgeEncoding.encodeBech32(hrp: "age", data: [u] + [UInt8](repeating: 0, count: 31))
            #expect(throws: AgeRecipientError.lowOrder) { _ = try AgeEncryptor(recipients: [try AgeRecipients.parse(text)], armor: false) }
        }
        let keys = try PeerKeys()
        let ssh = try AgeSSHIdentity(openSSH: keys.text(keys.ed25519))
        let tag = SSHKeys.tag(ssh.wire)
        let stanza = AgeKind.Stanza(type: "ssh-ed25519", arguments: [tag, String(decoding: AgeEncoding.encodeRaw([UInt8](repeating: 0, count: 32)), as: UTF8.self)],
                                    body: [UInt8](repeating: 0, count: 32))
        #expect(throws: KindError.self) { _ = try ssh.unwrap([stanza]) }
    }

    @Test("recipients as age reads them: SSH key lines with comments, a recipients file with comments; errors name the line, never echo a secret key")
    func parsing() throws {
        let keys = try PeerKeys()
        let file = """
            # the team
            \(keys.recipient)

               \(keys.text(keys.ed25519 + ".pub").trimmingCharacters(in: .newlines))
            \(keys.text(keys.rsa + ".pub"))
            """
        let parsed = try AgeRecipients.parseFile(file)
        #expect(parsed.count == 3)
        #expect(parsed[0] is AgeX25519Recipient && parsed[1] is AgeSSHEd25519Recipient && parsed[2] is AgeSSHRSARecipient)
        #expect(throws: AgeRecipientError.empty) { _ = try AgeRecipients.parseFile("# nobody\n\n") }
        #expect(throws: AgeRecipientError.malformed("line 2: not a recipient (age1…, ssh-ed25519 or ssh-rsa)")) { _ = try AgeRecipients.parseFile("\(keys.recipient)\nbob\n") }
        let secret = try #require(AgeX25519Identity.generate().secretKeyText.decodedUTF8())
        #expect(throws: AgeRecipientError.secretKey) { _ = try AgeRecipients.parse(secret) }
        do { _ = try AgeRecipients.parseFile("\(secret)\n") } catch { #expect(!"\(error)".contains(secret)) }
        // The last character changed (to another of Bech32's: "q" when it is not one, else "p"), so the checksum fails.
        let changed = String(keys.recipient.dropLast()) + (keys.recipient.hasSuffix("q") ? "p" : "q")
        #expect(throws: AgeRecipientError.self) { _ = try AgeRecipients.parse(changed) }
        #expect(throws: AgeRecipientError.self) { _ = try AgeRecipients.parse("ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTY=") }
        // A small RSA key is refused, as age does.
        let sshKeygen = try #require(Peers.find("ssh-keygen"))
        let small = folder.path + "/small"
        try #require(try Peers.run([sshKeygen, "-q", "-t", "rsa", "-b", "1024", "-N", "", "-f", small], in: folder).status == 0)
        #expect(throws: AgeRecipientError.weakRSA(bits: 1024)) { _ = try AgeRecipients.parse(keys.text(small + ".pub")) }
    }

    @Test("OpenSSH private keys: a passphrase-protected one and an ECDSA one are refused, saying why")
    func privateKeys() throws {
        let sshKeygen = try #require(Peers.find("ssh-keygen"))
        let locked = folder.path + "/locked"
        try #require(try Peers.run([sshKeygen, "-q", "-t", "ed25519", "-N", "a passphrase", "-f", locked], in: folder).status == 0)
        #expect(throws: AgeSSHIdentity.ParseError.encrypted) { _ = try AgeSSHIdentity(openSSH: String(contentsOfFile: locked, encoding: .utf8)) }
        let ecdsa = folder.path + "/ecdsa"
        try #require(try Peers.run([sshKeygen, "-q", "-t", "ecdsa", "-N", "", "-f", ecdsa], in: folder).status == 0)
        #expect(throws: AgeSSHIdentity.ParseError.unsupported("ecdsa-sha2-nistp256")) { _ = try AgeSSHIdentity(openSSH: String(contentsOfFile: ecdsa, encoding: .utf8)) }
    }

    @Test("scrypt: age -d opens rwsecret's password file (through a terminal), and rwsecret opens it")
    func scrypt() throws {
        let age = try #require(Peers.find("age"))
        let password = Peers.randomPassword(unicode: true)
        let plaintext = Peers.plaintext(1000)
        let encryptor = AgeEncryptor(password: SecretBytes(utf8: password), armor: true)
        let message = encryptor.update(plaintext) + encryptor.finalize()
        let path = folder.file("scrypt.age", bytes: message)
        let out = folder.path + "/scrypt.out"
        let opened = try Peers.run(["/usr/bin/env", "python3", Peers.root.path + "/scripts/age-pty.py", age, "-d", "-o", out, path], input: Array((password + "\n").utf8), in: folder)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(Array(FileManager.default.contents(atPath: out) ?? Data()) == plaintext)
        guard case .success(let ours) = Peers.open(AgeKind.self, message, [.password(SecretBytes(utf8: password))]) else {
            Issue.record("rwsecret did not open its scrypt file")
            return
        }
        #expect(ours.plaintext == plaintext)
    }

    @Test("damaged OpenSSH keys and recipient lines are refused with an error, never a crash (2,000 random changes)")
    func damagedInputs() throws {
        let keys = try PeerKeys()
        let inputs = [keys.text(keys.ed25519), keys.text(keys.rsa), keys.text(keys.ed25519 + ".pub"), keys.text(keys.rsa + ".pub"), keys.recipient]
        for _ in 0..<2000 {
            var bytes = Array(inputs.randomElement()!.utf8)
            for _ in 0..<Int.random(in: 1...4) {
                switch Int.random(in: 0..<3) {
                case 0: bytes[Int.random(in: 0..<bytes.count)] = UInt8.random(in: 0...255)
                case 1: bytes.removeSubrange(Int.random(in: 0..<bytes.count)..<bytes.count)
                default: bytes.insert(UInt8.random(in: 0...255), at: Int.random(in: 0...bytes.count))
                }
                if bytes.isEmpty { bytes = [0x41] }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? AgeSSHIdentity(openSSH: text)
            _ = try? AgeRecipients.parseFile(text)
        }
    }
}
