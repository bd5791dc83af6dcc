import Foundation
import Testing
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// The long OpenPGP peer matrix (issue 34), `make test-long` only (RWSECRET_LONG_TESTS=1; in
/// `make test` it is skipped, saying so): fresh keys and messages at each run, in both
/// directions, from Debian's gpg 2.2 (rsa3072, ed25519/cv25519, nistp256; `-e`, `-e -c`,
/// `-se`, armored and binary, one and three recipients), sq 0.27 (keys with and without a
/// password; `sq encrypt` with and without `--signer-key`), rnp (`-e --aead=ocb|eax`, `-es`),
/// and `encrypt --to-key` output opened by gpg, sq and rnp.
@Suite("OpenPGP peer matrix (make test-long)", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["RWSECRET_LONG_TESTS"] == "1", "the long OpenPGP peer matrix: make test-long"))
struct OpenPGPPeerMatrixTests {
    let dir = TemporaryFolder()
    static let vaultPassphrase = "a vault passphrase long enough"

    var gnupg: PrivateGnuPG { PrivateGnuPG(in: dir) }
    var home: String { gnupg.home }
    var rnpHome: String { dir.url.appendingPathComponent("rnp").path }

    @discardableResult
    func gpg(_ args: [String], passphrase: String? = nil, stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try gnupg.run(args, passphrase: passphrase, stdin: stdin)
    }
    func stopAgent() { gnupg.stopAgent() }
    static func tool(_ name: String) throws -> String { try Peers.tool(name) }
    @discardableResult
    func shell(_ arguments: [String], suffix: String = "", stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try Peers.shell(arguments, suffix: suffix, stdin: stdin, in: dir)
    }

    func run(_ args: [String]) throws -> RWSecretProcess.Result {
        let env = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": Self.vaultPassphrase])
        return try RWSecretProcess.run(args, environment: env, directory: dir.url)
    }





    struct Key {
        let fingerprint: String
        let secret: String
        let publicKey: String
    }

    func makeKey(_ name: String, _ primary: String, _ subkey: String) throws -> Key {
        let made = try gpg(["--quick-gen-key", "\(name) <\(name.lowercased())@example.org>", primary, "sign", "never"])
        try #require(made.status == 0, "\(made.stderr)")
        let list = try gpg(["--list-keys", "--with-colons", "\(name.lowercased())@example.org"])
        let fingerprint = String(try #require(list.out.split(separator: "\n").first { $0.hasPrefix("fpr:") }?.split(separator: ":", omittingEmptySubsequences: false)[9]))
        try #require(try gpg(["--quick-add-key", fingerprint, subkey, "encr", "never"]).status == 0)
        let secret = dir.url.appendingPathComponent("\(name).sec.asc").path
        let publicKey = dir.url.appendingPathComponent("\(name).pub.gpg").path
        try #require(try gpg(["--armor", "-o", secret, "--export-secret-keys", fingerprint]).status == 0)
        try #require(try gpg(["-o", publicKey, "--export", fingerprint]).status == 0)
        chmod(secret, 0o600)
        return Key(fingerprint: fingerprint, secret: secret, publicKey: publicKey)
    }

    static let text = "the peer matrix ✓\nsecond line\n"

    @Test("gpg 2.2: -e, -e -c, -se, armored and binary, one and three recipients (rsa3072, cv25519, nistp256): each key opens each; -se verified")
    func gpgMatrix() throws {
        defer { stopAgent() }
        let keys = [try makeKey("Rsa", "rsa3072", "rsa3072"), try makeKey("Cv", "ed25519", "cv25519"), try makeKey("Nist", "nistp256", "nistp256")]
        let passwords = dir.file("passwords", "matrix pw\n")
        for (index, signer) in keys.enumerated() {
            for armor in [false, true] {
                for recipients in [[keys[(index + 1) % 3]], keys] {
                    for mode in ["-e", "-e -c", "-se"] {
                        let out = dir.url.appendingPathComponent("m-\(index)-\(armor)-\(recipients.count)-\(mode.replacingOccurrences(of: " ", with: "")).gpg").path
                        var args = recipients.flatMap { ["-r", $0.fingerprint] } + (armor ? ["--armor"] : []) + ["-o", out, "--encrypt"]
                        if mode == "-e -c" { args += ["--symmetric", "--s2k-count", "65536"] }
                        if mode == "-se" { args += ["--sign", "-u", signer.fingerprint] }
                        let made = try gpg(args, passphrase: mode == "-e -c" ? "matrix pw" : nil, stdin: Data(Self.text.utf8))
                        try #require(made.status == 0, "\(made.stderr)")
                        for recipient in recipients {
                            let opened = try run(["decrypt", "--no-store", "--verbose", "--identity", recipient.secret, "--signer-key", signer.publicKey, out])
                            #expect(opened.status == 0 && opened.out == Self.text, "\(mode) \(armor) to \(recipient.fingerprint): \(opened.stderr)")
                            if mode == "-se" { #expect(opened.stderr.contains("signed by \(signer.fingerprint), verified"), "\(opened.stderr)") }
                        }
                        if mode == "-e -c" {
                            let byPassword = try run(["decrypt", "--no-store", "--password-file", passwords, out])
                            #expect(byPassword.status == 0 && byPassword.out == Self.text, "\(byPassword.stderr)")
                        }
                    }
                }
            }
        }
    }

    @Test("sq 0.27: keys with and without a password (imported with --passphrase-file), sq encrypt with and without --signer-key")
    func sqMatrix() throws {
        let sq = try Self.tool("sq")
        try #require(PseudoTerminal.isAvailable, PseudoTerminal.unavailable)
        let plain = dir.file("plain.txt", Self.text)
        let protectedKey = dir.url.appendingPathComponent("sq-protected.asc").path
        // sq asks for a key's password on a terminal only.
        let generated = try PseudoTerminal.run("\(sq) key generate --userid '<protected@example.org>' --with-password --export \(PseudoTerminal.quote(protectedKey))",
                                               environment: RWSecretProcess.environment(home: dir.url),
                                               answers: [("Enter password", "sq key pw"), ("Repeat", "sq key pw")])
        try #require(generated.status == 0 && !generated.timedOut, "\(generated.raw)")
        let plainKey = dir.url.appendingPathComponent("sq-plain.asc").path
        try #require(try shell([sq, "key", "generate", "--userid", "<plain@example.org>", "--export", plainKey]).status == 0)
        chmod(protectedKey, 0o600)
        chmod(plainKey, 0o600)
        var certificates: [String] = []
        for key in [protectedKey, plainKey] {
            let cert = key + ".pub"
            try #require(try shell([sq, "key", "extract-cert", key], suffix: " > '\(cert)'").status == 0)
            certificates.append(cert)
        }
        let passFile = dir.file("sq-pass", "sq key pw\n")
        let imported = try run(["--store", "file", "identity", "import", "protected", "--file", protectedKey, "--passphrase-file", passFile])
        #expect(imported.status == 0, "\(imported.stderr)")
        for (index, cert) in certificates.enumerated() {
            for signed in [false, true] {
                let out = dir.url.appendingPathComponent("sq-\(index)-\(signed).pgp").path
                let made = try shell([sq, "encrypt", "--recipient-cert", cert] + (signed ? ["--signer-key", plainKey] : []) + ["--output", out, plain])
                try #require(made.status == 0, "\(made.stderr)")
                let opened = index == 0
                    ? try run(["--store", "file", "--verbose", "decrypt", "--signer-key", certificates[1], out])
                    : try run(["decrypt", "--no-store", "--verbose", "--identity", plainKey, out])
                #expect(opened.status == 0 && opened.out == Self.text, "\(opened.stderr)")
                #expect(opened.stderr.contains(", verified") == signed, "\(opened.stderr)")
            }
        }
    }

    @Test("rnp: -e --aead=ocb|eax (LibrePGP tag 20 after a PKESK v3), -e, -es, to gpg-made keys imported into rnp")
    func rnpMatrix() throws {
        defer { stopAgent() }
        let rnp = try Self.tool("rnp")
        let rnpkeys = try Self.tool("rnpkeys")
        let keys = [try makeKey("RnpRsa", "rsa3072", "rsa3072"), try makeKey("RnpCv", "ed25519", "cv25519")]
        try FileManager.default.createDirectory(atPath: rnpHome, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for key in keys { try #require(try shell([rnpkeys, "--homedir", rnpHome, "--import", key.secret]).status == 0) }
        let plain = dir.file("plain.txt", Self.text)
        for recipient in keys {
            for extra in [["--aead=ocb"], ["--aead=eax"], [], ["-s", "-u", keys[0].fingerprint], ["--aead=ocb", "-s", "-u", keys[1].fingerprint]] {
                let out = dir.url.appendingPathComponent("rnp-\(UUID().uuidString).pgp").path
                let made = try shell([rnp, "--homedir", rnpHome, "--password", "", "-e", "-r", recipient.fingerprint] + extra + ["--output", out, plain], suffix: " </dev/null")
                try #require(made.status == 0, "\(extra): \(made.stderr)")
                let opened = try run(["decrypt", "--no-store", "--verbose", "--identity", recipient.secret, "--signer-key", keys[0].publicKey,
                                      "--signer-key", keys[1].publicKey, out])
                #expect(opened.status == 0 && opened.out == Self.text, "\(extra): \(opened.stderr)")
                if extra.contains("-s") { #expect(opened.stderr.contains(", verified"), "\(extra): \(opened.stderr)") }
            }
        }
    }

    @Test("encrypt --to-key to each gpg key and to all three, armored and binary: opened by gpg 2.2, sq and rnp")
    func toKeyOpenedByPeers() throws {
        defer { stopAgent() }
        let sq = try Self.tool("sq")
        let rnp = try Self.tool("rnp")
        let keys = [try makeKey("ToRsa", "rsa3072", "rsa3072"), try makeKey("ToCv", "ed25519", "cv25519"), try makeKey("ToNist", "nistp256", "nistp256")]
        let plain = dir.file("plain.txt", Self.text)
        for armor in [false, true] {
            for recipients in keys.map({ [$0] }) + [keys] {
                let out = dir.url.appendingPathComponent("to-\(UUID().uuidString)\(armor ? ".asc" : ".pgp")").path
                let made = try run(["encrypt"] + recipients.flatMap { ["--to-key", $0.publicKey] } + (armor ? ["--armor"] : []) + ["-o", out, plain])
                try #require(made.status == 0, "\(made.stderr)")
                let byGPG = try gpg(["-d", out])
                #expect(byGPG.status == 0 && byGPG.out == Self.text, "\(byGPG.stderr)")
                for recipient in recipients {
                    let bySQ = try shell([sq, "decrypt", "--recipient-key", recipient.secret, out])
                    #expect(bySQ.status == 0 && bySQ.out == Self.text, "\(bySQ.stderr)")
                    let byRNP = try shell([rnp, "--homedir", rnpHome, "--keyfile", recipient.secret, "--password", "", "-d", out, "--output", "-"])
                    #expect(byRNP.status == 0 && byRNP.out == Self.text, "\(byRNP.stderr)")
                }
            }
        }
    }
}
