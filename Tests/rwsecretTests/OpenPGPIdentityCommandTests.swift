import Foundation
import Testing
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// OpenPGP secret keys as identities (issue 34), end to end with Debian's gpg 2.2 in a private
/// GNUPGHOME: `identity import` (protected and not), `identity list`, `identity export` back
/// into gpg, `--identity KEYFILE`, and messages to keys in the chain with passwords beside them.
@Suite("OpenPGP secret keys as identities: import, list, export, --identity, the chain", .serialized)
struct OpenPGPIdentityCommandTests {
    let dir = TemporaryFolder()
    static let passphrase = "a vault passphrase long enough"

    var home: String { PrivateGnuPG(in: dir).home }

    /// gpg in the private home (`homeDir` another), the passphrase (when given) from a 0600 file on fd 3.
    @discardableResult
    func gpg(_ args: [String], passphrase: String? = nil, homeDir: String? = nil, stdin: Data = Data()) throws -> RWSecretProcess.Result {
        var gnupg = PrivateGnuPG(in: dir)
        if let homeDir { gnupg.home = homeDir }
        return try gnupg.run(args, passphrase: passphrase, stdin: stdin)
    }

    func stopAgents() {
        PrivateGnuPG(in: dir).stopAgent()
        PrivateGnuPG(in: dir, name: "other").stopAgent()
    }

    func run(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        let env = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        return try RWSecretProcess.run(args, stdin: stdin, environment: env, directory: dir.url)
    }



    /// A key with a signing primary and an encryption subkey; its fingerprint.
    func makeKey(_ name: String, _ primary: String, _ subkey: String, passphrase: String? = nil) throws -> String {
        let made = try gpg(["--quick-gen-key", "\(name) <\(name.lowercased())@example.org>", primary, "sign", "never"], passphrase: passphrase)
        try #require(made.status == 0, "\(made.stderr)")
        let list = try gpg(["--list-keys", "--with-colons", "\(name.lowercased())@example.org"])
        let fingerprint = try #require(list.out.split(separator: "\n").first { $0.hasPrefix("fpr:") }?.split(separator: ":", omittingEmptySubsequences: false)[9])
        let added = try gpg(["--quick-add-key", String(fingerprint), subkey, "encr", "never"], passphrase: passphrase)
        try #require(added.status == 0, "\(added.stderr)")
        return String(fingerprint)
    }

    func export(_ fingerprint: String, passphrase: String? = nil, armor: Bool = true) throws -> String {
        let out = dir.url.appendingPathComponent("key-\(fingerprint.prefix(8))\(armor ? ".asc" : ".gpg")").path
        let made = try gpg((armor ? ["--armor"] : []) + ["-o", out, "--export-secret-keys", fingerprint], passphrase: passphrase)
        try #require(made.status == 0, "\(made.stderr)")
        chmod(out, 0o600)
        return out
    }

    func encrypt(_ recipients: [String], _ text: String, extra: [String] = [], passphrase: String? = nil) throws -> String {
        let out = dir.url.appendingPathComponent("m-\(UUID().uuidString).gpg").path
        let made = try gpg(recipients.flatMap { ["-r", $0] } + extra + ["-o", out, "--encrypt"], passphrase: passphrase, stdin: Data(text.utf8))
        try #require(made.status == 0, "\(made.stderr)")
        return out
    }

    @Test("import (protected, --passphrase-file) then list, decrypt with no --identity, export into another gpg that decrypts")
    func importListDecryptExport() throws {
        defer { stopAgents() }
        let keyPassphrase = "correct horse ✓"
        let fingerprint = try makeKey("Alice", "ed25519", "cv25519", passphrase: keyPassphrase)
        let keyFile = try export(fingerprint, passphrase: keyPassphrase)
        let message = try encrypt([fingerprint], "to alice\n")
        // Before: a message to a key is refused whatever is given.
        let wrong = dir.file("wrong", "not it\n")
        let refused = try run(["--store", "file", "identity", "import", "alice", "--file", keyFile, "--passphrase-file", wrong])
        #expect(refused.status == 65 && refused.errLines == ["rwsecret: \(keyFile): wrong passphrase for the OpenPGP secret key"], "\(refused.stderr)")
        let none = try run(["--store", "file", "identity", "import", "alice", "--file", keyFile])
        #expect(none.status == 65 && none.errLines.count == 1 && none.stderr.contains("--passphrase-file"), "\(none.stderr)")
        let passFile = dir.file("pass", keyPassphrase + "\n")
        let imported = try run(["--store", "file", "identity", "import", "alice", "--file", keyFile, "--passphrase-file", passFile])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.out == "\(fingerprint) Alice <alice@example.org>\n", "\(imported.out)")
        let listed = try run(["--store", "file", "identity", "list"])
        #expect(listed.out == "alice\t\(fingerprint)\tAlice <alice@example.org>\n", "\(listed.out) \(listed.stderr)")
        let json = try run(["--store", "file", "identity", "list", "--json"])
        #expect(json.out == #"[{"label":"alice","kind":"openpgp","recipient":"\#(fingerprint)","fingerprint":"\#(fingerprint)","user_id":"Alice <alice@example.org>","position":1}]"# + "\n", "\(json.out)")
        let opened = try run(["--store", "file", "--verbose", "decrypt", message])
        #expect(opened.status == 0 && opened.out == "to alice\n", "\(opened.stderr)")
        #expect(opened.errLines.contains { $0.contains("opened by identity alice (tried 1)") }, "\(opened.errLines)")
        // Export: an armored unprotected key that another gpg imports and decrypts with.
        let exported = dir.url.appendingPathComponent("exported.asc").path
        let wrote = try run(["--store", "file", "identity", "export", "alice", "-o", exported])
        #expect(wrote.status == 0, "\(wrote.stderr)")
        #expect(TemporaryFolder.mode(exported) == 0o600)
        let other = dir.url.appendingPathComponent("other").path
        let importedByGPG = try gpg(["--import", exported], homeDir: other)
        #expect(importedByGPG.status == 0 && importedByGPG.stderr.contains("secret keys imported: 1"), "\(importedByGPG.stderr)")
        let decrypted = try gpg(["-d", message], homeDir: other)
        #expect(decrypted.out == "to alice\n", "\(decrypted.stderr)")
        // No part of the passphrase said anywhere.
        for result in [refused, none, imported, listed, opened, wrote] {
            #expect(!result.stderr.contains("horse") && !result.out.contains("horse"))
        }
    }

    @Test("--identity KEYFILE for one run: RSA, NIST P-256; a message to a key no identity holds names its key ID; a tampered copy releases nothing")
    func identityFileAndRefusals() throws {
        defer { stopAgents() }
        let rsa = try makeKey("Bob", "rsa3072", "rsa3072")
        let nist = try makeKey("Carol", "nistp256", "nistp256")
        let rsaKey = try export(rsa, armor: false)
        let nistKey = try export(nist)
        let both = try encrypt([rsa, nist], "to both\n", extra: ["--armor"])
        for key in [rsaKey, nistKey] {
            let opened = try run(["decrypt", "--no-store", "--identity", key, both])
            #expect(opened.status == 0 && opened.out == "to both\n", "\(opened.stderr)")
        }
        let toCarol = try encrypt([nist], "to carol\n")
        let notHeld = try run(["decrypt", "--no-store", "--identity", rsaKey, toCarol])
        let list = try gpg(["--list-keys", "--with-colons", nist])
        let subkeyID = try #require(list.out.split(separator: "\n").first { $0.hasPrefix("sub:") }?.split(separator: ":", omittingEmptySubsequences: false)[4])
        #expect(notHeld.status == 1 && notHeld.errLines.count == 1, "\(notHeld.stderr)")
        #expect(notHeld.stderr.contains("encrypted to key \(subkeyID), which none of the 1 identities holds"), "\(notHeld.stderr)")
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: toCarol)))
        bytes[bytes.count - 5] ^= 0x10
        let tampered = dir.file("tampered.gpg", bytes: bytes)
        let out = dir.url.appendingPathComponent("out").path
        let failed = try run(["decrypt", "--no-store", "--binary", "--identity", nistKey, "-o", out, tampered])
        #expect(failed.status == 1 && failed.errLines.count == 1, "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // A public key, and a signing-only key: one line each.
        let publicKey = dir.url.appendingPathComponent("public.asc").path
        try gpg(["--armor", "-o", publicKey, "--export", rsa])
        chmod(publicKey, 0o600)
        let notSecret = try run(["--store", "file", "identity", "import", "--file", publicKey])
        #expect(notSecret.status == 65 && notSecret.errLines.count == 1 && notSecret.stderr.contains("public key, not a secret key"), "\(notSecret.stderr)")
        let made = try gpg(["--quick-gen-key", "Sign Only <s@example.org>", "ed25519", "sign", "never"])
        try #require(made.status == 0)
        let signOnly = dir.url.appendingPathComponent("sign.asc").path
        try gpg(["--armor", "-o", signOnly, "--export-secret-keys", "s@example.org"])
        chmod(signOnly, 0o600)
        let noSubkey = try run(["--store", "file", "identity", "import", "--file", signOnly])
        #expect(noSubkey.status == 65 && noSubkey.errLines.count == 1 && noSubkey.stderr.contains("no encryption subkey"), "\(noSubkey.stderr)")
        // The library's words (OpenPGP.Identity.parse), with the way out the tool always gave.
        #expect(noSubkey.stderr.hasSuffix(": it has no encryption subkey (a signing-only key; add one: gpg --quick-add-key FINGERPRINT cv25519 encr)\n"), "\(noSubkey.stderr)")
    }

    @Test("a message to a key and a password: the stored key opens it with no key derivation; with no identity the password does")
    func keyAndPassword() throws {
        defer { stopAgents() }
        let fingerprint = try makeKey("Dave", "ed25519", "cv25519")
        let message = try encrypt([fingerprint], "either\n", extra: ["--symmetric", "--s2k-count", "65536"], passphrase: "pw one")
        let passwords = dir.file("passwords", "pw one\n")
        let byPassword = try run(["decrypt", "--no-store", "--verbose", "--password-file", passwords, message])
        #expect(byPassword.status == 0 && byPassword.out == "either\n", "\(byPassword.stderr)")
        let byKey = try run(["decrypt", "--no-store", "--verbose", "--identity", try export(fingerprint), message])
        #expect(byKey.status == 0 && byKey.out == "either\n", "\(byKey.stderr)")
        #expect(byKey.errLines.contains("rwsecret: key derivations: 0"), "\(byKey.errLines)")
    }

    @Test("gpg -se: the plaintext is released and the signer's fingerprint said, verified with the --identity key that signed it (--verbose, JSON)")
    func signedAndEncrypted() throws {
        defer { stopAgents() }
        let fingerprint = try makeKey("Erin", "ed25519", "cv25519")
        let message = try encrypt([fingerprint], "signed and sealed\n", extra: ["--sign", "-u", fingerprint])
        let key = try export(fingerprint)
        let verbose = try run(["decrypt", "--no-store", "--verbose", "--identity", key, message])
        #expect(verbose.status == 0 && verbose.out == "signed and sealed\n", "\(verbose.stderr)")
        #expect(verbose.stderr.contains("signed by \(fingerprint), verified"), "\(verbose.stderr)")
        let json = try run(["decrypt", "--no-store", "--json", "--identity", key, message])
        #expect(json.out.contains(#""signed_by":"\#(fingerprint)","signature":"verified""#), "\(json.out)")
        let binary = try run(["decrypt", "--no-store", "--verbose", "--binary", "--identity", key, "-o", dir.url.appendingPathComponent("out").path, message])
        #expect(binary.status == 0 && binary.errLines.contains("rwsecret: signed by \(fingerprint), verified"), "\(binary.stderr)")
    }
}
