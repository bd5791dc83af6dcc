import Foundation
import Testing
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// `encrypt --to-key FILE` (issue 34 item 6): OpenPGP messages to public keys made at test time
/// by Debian's gpg 2.2 in a private GNUPGHOME (rsa3072, cv25519, nistp256), opened by gpg, sq
/// and rnp; a v6 key (RFC 9580 A.4) opened by rwsecret itself; expired, revoked, signing-only
/// and mixed-version keys refused with one line.
@Suite("encrypt --to-key: OpenPGP messages to gpg, sq, rnp and v6 keys; bad keys refused", .serialized)
struct EncryptToKeyCommandTests {
    let dir = TemporaryFolder()

    var home: String { dir.url.appendingPathComponent("gnupg").path }

    static let rfc9580: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Fixtures/kinds/manifest.tsv").path) { folder.deleteLastPathComponent() }
        return folder.appendingPathComponent("Fixtures/kinds/openpgp-rfc9580")
    }()

    var gnupg: PrivateGnuPG { PrivateGnuPG(in: dir) }

    @discardableResult
    func gpg(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result { try gnupg.run(args, stdin: stdin) }
    func stopAgent() { gnupg.stopAgent() }
    func fingerprint(_ email: String) throws -> String { try gnupg.fingerprint(email) }
    static func tool(_ name: String) throws -> String { try Peers.tool(name) }
    @discardableResult
    func shell(_ words: [String], suffix: String = "", stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try Peers.shell(words, suffix: suffix, stdin: stdin, in: dir)
    }

    func run(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url), directory: dir.url)
    }






    /// A key with a primary of `primary` (`usage` of it) and, unless nil, an encryption subkey.
    func makeKey(_ name: String, _ primary: String, usage: String = "sign", subkey: String?, expiry: String = "never", fakedTime: String? = nil) throws -> String {
        let faked = fakedTime.map { ["--faked-system-time", $0] } ?? []
        let email = "\(name.lowercased())@example.org"
        let made = try gpg(faked + ["--quick-gen-key", "\(name) <\(email)>", primary, usage, expiry])
        try #require(made.status == 0, "\(made.stderr)")
        let fpr = try fingerprint(email)
        if let subkey {
            let added = try gpg(faked + ["--quick-add-key", fpr, subkey, "encr", expiry])
            try #require(added.status == 0, "\(added.stderr)")
        }
        return fpr
    }

    /// The public key (`armor`) in a file; with `secret`, the secret key too (for sq and rnp).
    func export(_ fpr: String, armor: Bool, secret: Bool = false) throws -> String {
        let out = dir.url.appendingPathComponent("\(secret ? "sec" : "pub")-\(fpr.prefix(8))\(armor ? ".asc" : ".pgp")").path
        let made = try gpg((armor ? ["--armor"] : []) + ["-o", out, secret ? "--export-secret-keys" : "--export", fpr])
        try #require(made.status == 0, "\(made.stderr)")
        return out
    }

    /// 20,000 bytes of every value: over the 8 KiB partial-length parts, not text.
    static let plaintext = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) })

    @Test("rsa3072, cv25519 and nistp256 keys, armored and binary, one or three recipients: opened by gpg 2.2, sq and rnp")
    func peersOpen() throws {
        defer { stopAgent() }
        let sq = try Self.tool("sq")
        let rnp = try Self.tool("rnp")
        let keys = [try makeKey("Rsa", "rsa3072", subkey: "rsa3072"), try makeKey("Cv", "ed25519", subkey: "cv25519"),
                    try makeKey("Nist", "nistp256", subkey: "nistp256")]
        let input = dir.file("secret.bin", bytes: Array(Self.plaintext))
        for (index, fpr) in keys.enumerated() {
            let armored = index % 2 == 0
            let pub = try export(fpr, armor: armored)
            let secret = try export(fpr, armor: !armored, secret: true)
            for (name, recipients) in [("one", [pub]), ("all", try keys.map { try export($0, armor: !armored) })] {
                let out = dir.url.appendingPathComponent("m-\(fpr.prefix(8))-\(name)\(armored ? ".asc" : ".pgp")").path
                let made = try run(["encrypt"] + recipients.flatMap { ["--to-key", $0] } + (armored ? ["--armor"] : []) + ["-o", out, input])
                #expect(made.status == 0 && made.stderr.isEmpty, "\(made.stderr)")
                let written = try Data(contentsOf: URL(fileURLWithPath: out))
                #expect(written.starts(with: Data("-----BEGIN PGP MESSAGE-----\n".utf8)) == armored)
                let byGPG = try gpg(["-d", out])
                #expect(byGPG.status == 0 && byGPG.stdout == Self.plaintext, "gpg \(fpr) \(name): \(byGPG.stderr)")
                let bySQ = try shell([sq, "decrypt", "--recipient-key", secret, out])
                #expect(bySQ.status == 0 && bySQ.stdout == Self.plaintext, "sq \(fpr) \(name): \(bySQ.stderr)")
                let byRNP = try shell([rnp, "--homedir", dir.url.appendingPathComponent("rnp").path, "--keyfile", secret, "--password", "", "-d", out, "--output", "-"])
                #expect(byRNP.status == 0 && byRNP.stdout == Self.plaintext, "rnp \(fpr) \(name): \(byRNP.stderr)")
            }
        }
        // gpg's own name of what it opened: the file name and the MDC.
        let out = dir.url.appendingPathComponent("named.pgp").path
        #expect(try run(["encrypt", "--to-key", try export(keys[1], armor: false), "-o", out, input]).status == 0)
        let listed = try gpg(["--list-packets", out])
        #expect(listed.out.contains("name=\"secret.bin\""), "\(listed.out)")
        #expect(listed.out.contains("mdc_method: 2"), "\(listed.out)")
    }

    @Test("a v6 key (RFC 9580 A.4): PKESK v6 and SEIPD v2 OCB, which rwsecret opens with the secret key; a changed byte opens nothing")
    func v6Key() throws {
        let key = Self.rfc9580.appendingPathComponent("a4-v6-secret-key.asc").path
        let copy = dir.file("a4.asc", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: key))))
        chmod(copy, 0o600)
        let input = dir.file("secret.bin", bytes: Array(Self.plaintext))
        let out = dir.url.appendingPathComponent("v6.pgp").path
        let made = try run(["encrypt", "--to-key", copy, "-o", out, input])
        #expect(made.status == 0, "\(made.stderr)")
        let written = Array(try Data(contentsOf: URL(fileURLWithPath: out)))
        // PKESK (tag 1) version 6 to the A.4 key's X25519 subkey, then SEIPD (tag 18) version 2, AES-256, OCB.
        #expect(written.prefix(3) == [0xC1, written[1], 6])
        let seipd = 2 + Int(written[1])
        // (its body in 8 KiB partial lengths: 0xED), chunks of 64 KiB (10).
        #expect(Array(written[seipd...(seipd + 5)]) == [0xD2, 0xED, 2, 9, 2, 10])
        let opened = try run(["decrypt", "--binary", "--identity", copy, out])
        #expect(opened.status == 0 && opened.stdout == Self.plaintext, "\(opened.stderr)")
        var tampered = written
        tampered[tampered.count - 40] ^= 1
        let bad = dir.file("bad.pgp", bytes: tampered)
        let refused = try run(["decrypt", "--binary", "--identity", copy, bad])
        #expect(refused.status != 0 && refused.stdout.isEmpty)
        // Armored too.
        let armored = try run(["encrypt", "--to-key", copy, "--armor", input])
        #expect(armored.status == 0 && armored.out.hasPrefix("-----BEGIN PGP MESSAGE-----\n"))
        let fromArmor = try run(["decrypt", "--binary", "--identity", copy, "-"], stdin: armored.stdout)
        #expect(fromArmor.status == 0 && fromArmor.stdout == Self.plaintext, "\(fromArmor.stderr)")
    }

    @Test("a binary OpenPGP message is not written to a terminal (64); --armor is", .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func terminal() throws {
        let input = dir.file("plain", "x\n")
        let key = dir.file("a4.asc", bytes: Array(try Data(contentsOf: Self.rfc9580.appendingPathComponent("a4-v6-secret-key.asc"))))
        let environment = RWSecretProcess.environment(home: dir.url)
        let (refused, screen) = try PseudoTerminal.converse(["encrypt", "--to-key", key, input], environment: environment, answers: [])
        #expect(refused == 64, "\(screen)")
        #expect(screen.contains("refusing to write a binary OpenPGP message to a terminal"))
        let (armored, screen2) = try PseudoTerminal.converse(["encrypt", "--to-key", key, "--armor", input], environment: environment, answers: [])
        #expect(armored == 0 && screen2.contains("-----END PGP MESSAGE-----"), "\(screen2)")
    }

    @Test("refused with one line (65) and nothing written: expired, revoked, signing-only, ElGamal, v4 with v6, not a key; -o over the key or input (73)")
    func refusals() throws {
        defer { stopAgent() }
        let input = dir.file("secret.txt", "a secret\n")
        func refused(_ keys: [String], _ expected: String) throws {
            let out = dir.url.appendingPathComponent("never.pgp").path
            let result = try run(["encrypt"] + keys.flatMap { ["--to-key", $0] } + ["-o", out, input])
            #expect(result.status == 65, "\(expected): \(result.status) \(result.stderr)")
            #expect(result.errLines.count == 1 && result.stderr.contains(expected), "\(result.stderr)")
            #expect(result.stdout.isEmpty && !FileManager.default.fileExists(atPath: out))
        }
        // Made in 2020, for a year.
        let expired = try makeKey("Old", "ed25519", usage: "default", subkey: "cv25519", expiry: "1y", fakedTime: "20200101T000000")
        try refused([try export(expired, armor: true)], "the OpenPGP key \(expired) has expired")
        let revoked = try makeKey("Gone", "ed25519", subkey: "cv25519")
        // A copy of the key before its revocation (the export below writes the same path).
        let good = dir.file("before-revocation.pgp", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: try export(revoked, armor: false)))))
        #expect(try run(["encrypt", "--to-key", good, "-o", dir.url.appendingPathComponent("ok.pgp").path, input]).status == 0)
        let certificate = try String(contentsOfFile: "\(home)/openpgp-revocs.d/\(revoked).rev", encoding: .utf8)
            .replacingOccurrences(of: ":-----BEGIN", with: "-----BEGIN")
        #expect(try gpg(["--import"], stdin: Data(certificate.utf8)).status == 0)
        try refused([try export(revoked, armor: false)], "the OpenPGP key \(revoked) is revoked")
        let signing = try makeKey("Signer", "ed25519", subkey: nil)
        try refused([try export(signing, armor: true)], "the OpenPGP key \(signing) has no valid encryption subkey")
        // DSA with an ElGamal subkey (OpenSSL has no ElGamal).
        let elgamal = try makeKey("Elg", "dsa2048", subkey: "elg2048")
        try refused([try export(elgamal, armor: false)], "the OpenPGP key \(elgamal): its encryption subkey is ElGamal, which OpenSSL does not have")
        let v6 = dir.file("a4.asc", bytes: Array(try Data(contentsOf: Self.rfc9580.appendingPathComponent("a4-v6-secret-key.asc"))))
        try refused([good, v6], "v4 and v6 OpenPGP keys in one message")
        try refused([input], "not a valid OpenPGP key")
        // Conflicting options: bad usage (64), nothing read.
        for extra in [["--to", "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"], ["--password-file", input], ["--format", "age"]] {
            let result = try run(["encrypt", "--to-key", good] + extra + [input])
            #expect(result.status == 64 && result.stdout.isEmpty, "\(extra): \(result.stderr)")
        }
        // -o never replaces the key file it reads, nor the input (73), and leaves them as they were.
        let keyBytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let overKey = try run(["encrypt", "--to-key", good, "-o", good, input])
        #expect(overKey.status == 73 && overKey.stderr.contains("cannot create: it is a --to-key file"), "\(overKey.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: good)) == keyBytes)
        let overInput = try run(["encrypt", "--to-key", good, "-o", input, input])
        #expect(overInput.status == 73 && overInput.stderr.contains("it is the input file"), "\(overInput.stderr)")
        #expect(try String(contentsOfFile: input, encoding: .utf8) == "a secret\n")
    }

    @Test("a renewed key whose file still holds its old, expiring self-signatures: the newest signature says, as gpg reads it")
    func renewedKey() throws {
        defer { stopAgent() }
        let fpr = try makeKey("Renewed", "ed25519", usage: "default", subkey: "cv25519", expiry: "1y", fakedTime: "20200101T000000")
        let old = dir.file("old.pgp", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: try export(fpr, armor: false)))))
        let list = try gpg(["--list-keys", "--with-colons", fpr])
        let subkey = try #require(list.out.split(separator: "\n").filter { $0.hasPrefix("fpr:") }.last?.split(separator: ":", omittingEmptySubsequences: false)[9])
        #expect(try gpg(["--quick-set-expire", fpr, "0"]).status == 0)
        #expect(try gpg(["--quick-set-expire", fpr, "0", String(subkey)]).status == 0)
        // gpg keeps the old self-signatures it is given again, and exports both.
        #expect(try gpg(["--import", old]).status == 0)
        let both = try export(fpr, armor: true)
        let input = dir.file("secret.txt", "renewed\n")
        let made = try run(["encrypt", "--to-key", both, "--armor", input])
        #expect(made.status == 0, "\(made.stderr)")
        let opened = try gpg(["-d"], stdin: made.stdout)
        #expect(opened.status == 0 && opened.out == "renewed\n", "\(opened.stderr)")
    }


    /// Keys pysequoia makes (RFC 9580 v6 and RFC 4880 v4 profiles; Cv25519, Cv448, P-384,
    /// RSA 2048), each message opened by pysequoia: v6 X25519, X448, ECDH and RSA in PKESK v6.
    static let sequoiaScript = """
import sys, subprocess, os
import pysequoia as ps
rw, folder = sys.argv[1], sys.argv[2]
plain = bytes((i * 7 + (i >> 8)) & 0xff for i in range(70000))
src = os.path.join(folder, "plain.bin")
open(src, "wb").write(plain)
for profile in ["RFC9580", "RFC4880"]:
    for suite in ["Cv25519", "Cv448", "P384", "RSA2k"]:
        if profile == "RFC4880" and suite == "Cv448":
            continue
        name = f"{profile}-{suite}"
        tsk = ps.Tsk.generate(f"{name} <p@example.org>", profile=getattr(ps.Profile, profile), cipher_suite=getattr(ps.CipherSuite, suite))
        pub = os.path.join(folder, name + ".asc")
        open(pub, "w").write(str(tsk.extract_certificate()))
        out = os.path.join(folder, name + ".pgp")
        subprocess.run([rw, "encrypt", "--to-key", pub, "-o", out, src], check=True)
        got = ps.decrypt(decryptor=tsk.decryptor(), bytes=open(out, "rb").read()).bytes
        assert got == plain, name
        print("ok", name)
"""

    @Test("v6 and v4 keys made by pysequoia (X25519, X448, P-384, RSA): pysequoia opens each message",
          .enabled(if: Peers.sequoiaPython != nil, "needs python3 with pysequoia (pip install pysequoia)"))
    func sequoiaKeys() throws {
        let python = try #require(Peers.sequoiaPython)
        let script = dir.file("peer.py", Self.sequoiaScript)
        let result = try RWSecretProcess.run(Array(python.dropFirst()) + [script, RWSecretProcess.executable.path, dir.path],
                                             environment: RWSecretProcess.environment(home: dir.url), directory: dir.url,
                                             executable: URL(fileURLWithPath: python[0]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.outLines == ["RFC9580-Cv25519", "RFC9580-Cv448", "RFC9580-P384", "RFC9580-RSA2k", "RFC4880-Cv25519", "RFC4880-P384", "RFC4880-RSA2k"].map { "ok " + $0 })
    }
}
