import Foundation
import RWSecretKit
import Testing

/// Issue 33, item 4, for identity files: what `rwsecret` reads from `--identity FILE` and
/// `identity import` (OpenSSH keys, protected or not; age identity files with lines age skips;
/// identity files encrypted with `age -p`) is public API, the passphrases the program's to ask:
/// `Age.Identity.parseSSH`, `Age.Identity.parseX25519(_:name:skipped:)`,
/// `Age.EncryptedIdentityFile`, and `IdentityChain` over `any Identity`. The calls are
/// `ConsumerIdentityFiles`', which typechecks as a consumer's file; before, these readers were
/// `package` (`AgeSSHIdentity`, `KindDecryption.counted`, `NamedIdentity`) and it did not.
@Suite("Identities: identity files on public API", .serialized)
struct IdentityFilesPublicTests {
    @Test("ConsumerIdentityFiles.swift typechecks as a consumer's file: identity files are public API")
    func consumerFileIsPublic() throws {
        let errors = try PublicAPITests.typecheckFile("ConsumerIdentityFiles.swift", besideTest: #filePath)
        #expect(errors.isEmpty, "\(errors)")
    }

    // Issue 33, item 6: reading a protected OpenSSH key derives its key (bcrypt-pbkdf); before,
    // there was no async form (this did not compile).
    @Test("Age.Identity.parseSSH's async form reads a protected key with its bcrypt-pbkdf derived on the library's scheduler pool")
    func asyncParseSSHDerivesOnThePool() async throws {
        let sshKeygen = try #require(Peers.find("ssh-keygen"))
        let folder = TemporaryFolder()
        // A passphrase no other test derives from: the witness matches derivations by bytes.
        let words = "pool-\(UInt64.random(in: 0...UInt64.max))"
        let key = folder.path + "/id-protected"
        try #require(try Peers.run([sshKeygen, "-q", "-t", "ed25519", "-N", words, "-f", key], in: folder).status == 0)
        let text = try String(contentsOfFile: key, encoding: .utf8)
        let passphrase = SecretBytes(utf8: words)
        DerivationWitness.watch(passphrase)
        #expect(try await Age.Identity.parseSSH(text, name: "id", passphrase: passphrase)?.name == "id")
        let onPool = DerivationWitness.seen(passphrase)
        #expect(!onPool.isEmpty && onPool.allSatisfy { $0 }, "\(onPool)")
    }

    @Test("ssh-keygen's Ed25519 key, plain and protected: read (a wrong passphrase, then the right one), and it opens what age -R wrote to its .pub")
    func sshKeys() throws {
        let age = try #require(Peers.find("age"))
        let sshKeygen = try #require(Peers.find("ssh-keygen"))
        let folder = TemporaryFolder()
        let plaintext = Array("to an ssh key\n".utf8)
        let input = folder.file("plain", bytes: plaintext)
        for passphrase in ["", "the key's passphrase"] {
            let key = folder.path + "/id-\(passphrase.isEmpty ? "plain" : "protected")"
            try #require(try Peers.run([sshKeygen, "-q", "-t", "ed25519", "-N", passphrase, "-f", key], in: folder).status == 0)
            let message = key + ".age"
            try #require(try Peers.run([age, "-R", key + ".pub", "-o", message, input], in: folder).status == 0)
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: key)))
            let read = try ConsumerIdentityFiles.read(bytes, name: "id", passphrases: passphrase.isEmpty ? [] : ["not it", passphrase])
            #expect(read.asked == (passphrase.isEmpty ? 0 : 2))
            #expect(read.identities.map(\.name) == ["id"])
            let recipient = try #require((read.identities[0] as? Age.Identity)?.recipient)
            #expect(recipient.description + " " == String(decoding: try Data(contentsOf: URL(fileURLWithPath: key + ".pub")), as: UTF8.self).prefix(recipient.description.count + 1))
            let opened = try ConsumerIdentityFiles.open(Array(try Data(contentsOf: URL(fileURLWithPath: message))), files: read.identities, store: MemoryPasswordStore())
            #expect(opened.plaintext == plaintext)
            #expect(opened.openedBy == "identity id")
            if !passphrase.isEmpty {
                #expect(ConsumerIdentityFiles.refusal(bytes)?.code == .needsPassphrase)
                #expect(ConsumerIdentityFiles.refusal(bytes, passphrases: ["no", "nor this"])?.code == .wrongPassphrase)
                #expect(ConsumerIdentityFiles.refusal(bytes, passphrases: ["no"])?.words == "the passphrase does not open this key")
            }
        }
    }

    @Test("age-keygen's identity file with a post-quantum line: the line is skipped and said; encrypted with age -p, it opens with its passphrase; to recipients, it is refused before asking")
    func ageFiles() throws {
        let keys = try PeerKeys()
        let age = try #require(Peers.find("age"))
        let identityText = "AGE-SECRET-KEY-PQ-1QQQQQQQQQQ\n" + keys.text(keys.identityFile)
        let read = try ConsumerIdentityFiles.read(Array(identityText.utf8), name: "keys.txt", passphrases: [])
        #expect(read.identities.map(\.name) == ["keys.txt"])
        #expect(read.skipped == ["line 1: ML-KEM-768 + X25519 (post-quantum) identities are not supported"], "\(read.skipped)")
        #expect((read.identities[0] as? Age.Identity)?.recipient?.description == keys.recipient)

        let plain = keys.folder.file("identity-plain", keys.text(keys.identityFile))
        let encrypted = keys.folder.path + "/identity.age"
        let made = try Peers.run(["/usr/bin/env", "python3", Peers.root.path + "/scripts/age-pty.py", age, "-p", "-o", encrypted, plain],
                                 input: Array("the file's passphrase\n".utf8), in: keys.folder)
        try #require(made.status == 0, "age -p failed: \(made.stderr)")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: encrypted)))
        let opened = try ConsumerIdentityFiles.read(bytes, name: "identity.age", passphrases: ["wrong", "the file's passphrase"])
        #expect(opened.asked == 2)
        #expect((opened.identities.first as? Age.Identity)?.recipient?.description == keys.recipient)
        #expect(ConsumerIdentityFiles.refusal(bytes, passphrases: ["wrong"])?.words == "no passphrase given opens this identity file")

        let toRecipient = try Age.encrypt(Array(keys.text(keys.identityFile).utf8), to: [try Age.Recipient(keys.recipient)])
        let refused = try #require(ConsumerIdentityFiles.refusal(toRecipient, passphrases: ["never asked"]))
        #expect(refused.code == .encryptedToRecipients)
        #expect(refused.words == "an age file encrypted to recipients (X25519), not with a passphrase")
    }

    // Issue 33, item 4: `rwsecret decrypt --identity` names every key of an OpenPGP key file by
    // the file and checks signatures with the chain's keys; before, `renamed(_:)` did not exist
    // and `signatureKeys()`/`signerKeys` were `package` (the consumer file did not typecheck).
    @Test("an OpenPGP key renamed keeps its key; a chain's signature keys are its signers', then its files' keys")
    func renamedAndSignatureKeys() throws {
        let bytes = Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent("kinds/openpgp-librepgp-keys/cv25519.sec.asc")))
        let signer = try #require(try OpenPGP.Identity.parse(Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent("kinds/openpgp-librepgp-keys/rsa.sec.asc"))), name: "rsa").first)
        let read = try ConsumerIdentityFiles.keysNamedByFile(bytes, name: "keys/all.asc", signers: [signer.certificate])
        let original = try #require(try OpenPGP.Identity.parse(bytes, name: "other").first)
        #expect(read.identities.map(\.name) == ["keys/all.asc"])
        #expect((read.identities.first as? OpenPGP.Identity)?.fingerprint == original.fingerprint)
        #expect(read.signatureKeys.map(\.fingerprint) == [signer.fingerprint, original.fingerprint])
    }

    @Test("an IdentityChain of a program's identities and a store's is made from public types")
    func chain() throws {
        let store = MemoryPasswordStore()
        let made = Age.Identity.generate(name: "kept")
        try store.addIdentities([IdentityToAdd(label: "kept", secret: made.secretKey)])
        let message = try Age.encrypt(Array("kept\n".utf8), to: [made.recipient])
        let opened = try ConsumerIdentityFiles.open(message, files: [], store: store)
        #expect(opened.openedBy == "identity kept")
    }
}
