import Foundation
import Testing
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Signed-and-encrypted OpenPGP messages (issue 34), end to end with Debian's gpg 2.2 and
/// pysequoia: the plaintext released as before, the signature said as `signed by FINGERPRINT`
/// and checked with the keys the run knows (`--signer-key`, `--identity`, the store's
/// identities); a bad signature said on stderr and failing the run (1), the plaintext written.
@Suite("OpenPGP signatures: signed by FINGERPRINT, verified / not verified / BAD", .serialized)
struct OpenPGPSignatureCommandTests {
    let dir = TemporaryFolder()
    static let passphrase = "a vault passphrase long enough"

    var gnupg: PrivateGnuPG { PrivateGnuPG(in: dir) }
    var home: String { gnupg.home }

    /// gpg in the private home, with an empty passphrase or `passphrase` (from a 0600 file on fd 3).
    @discardableResult
    func gpg(_ args: [String], passphrase: String? = nil, stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try gnupg.run(args, passphrase: passphrase, stdin: stdin)
    }

    func stopAgent() { gnupg.stopAgent() }

    func run(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        let env = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        return try RWSecretProcess.run(args, stdin: stdin, environment: env, directory: dir.url)
    }



    /// A primary key of `algorithm` that signs (and, with `subkey`, an encryption subkey); its fingerprint.
    func makeKey(_ name: String, _ algorithm: String, subkey: String? = nil) throws -> String {
        let made = try gpg(["--quick-gen-key", "\(name) <\(name.lowercased())@example.org>", algorithm, "sign", "never"])
        try #require(made.status == 0, "\(made.stderr)")
        let list = try gpg(["--list-keys", "--with-colons", "\(name.lowercased())@example.org"])
        let fingerprint = String(try #require(list.out.split(separator: "\n").first { $0.hasPrefix("fpr:") }?.split(separator: ":", omittingEmptySubsequences: false)[9]))
        if let subkey {
            let added = try gpg(["--quick-add-key", fingerprint, subkey, "encr", "never"])
            try #require(added.status == 0, "\(added.stderr)")
        }
        return fingerprint
    }

    /// The key exported (`secret`: with its secret parts) to a 0600 file.
    func export(_ fingerprint: String, secret: Bool, armor: Bool = true) throws -> String {
        let out = dir.url.appendingPathComponent("\(secret ? "sec" : "pub")-\(fingerprint.prefix(8))\(armor ? ".asc" : ".gpg")").path
        let made = try gpg((armor ? ["--armor"] : []) + ["-o", out, secret ? "--export-secret-keys" : "--export", fingerprint])
        try #require(made.status == 0, "\(made.stderr)")
        chmod(out, 0o600)
        return out
    }

    func gpgOutput(_ args: [String], _ text: String, passphrase: String? = nil) throws -> String {
        let out = dir.url.appendingPathComponent("m-\(UUID().uuidString).gpg").path
        let made = try gpg(args + ["-o", out], passphrase: passphrase, stdin: Data(text.utf8))
        try #require(made.status == 0, "\(made.stderr)")
        return out
    }

    @Test("gpg -se (EdDSA, RSA 3072, ECDSA P-256; binary, armored, --textmode) and gpg -se -c: verified with --signer-key, not verified without")
    func gpgSignedAndEncrypted() throws {
        defer { stopAgent() }
        let recipient = try makeKey("Rcpt", "ed25519", subkey: "cv25519")
        let recipientKey = try export(recipient, secret: true)
        let passwords = dir.file("passwords", "pw for -c\n")
        for (name, algorithm) in [("Eddsa", "ed25519"), ("Rsa", "rsa3072"), ("Ecdsa", "nistp256")] {
            let signer = try makeKey(name, algorithm)
            #expect(signer.count == 40)
            let publicKey = try export(signer, secret: false, armor: algorithm != "rsa3072")
            for extra in [[], ["--armor"], ["--textmode"]] {
                let text = "signed by \(name)\nline two\n"
                let message = try gpgOutput(extra + ["-r", recipient, "-u", signer, "--sign", "--encrypt"], text)
                let unknown = try run(["decrypt", "--no-store", "--verbose", "--identity", recipientKey, message])
                #expect(unknown.status == 0 && unknown.out == text, "\(unknown.stderr)")
                #expect(unknown.stderr.contains("; signed by \(signer), not verified"), "\(unknown.stderr)")
                let known = try run(["decrypt", "--no-store", "--verbose", "--identity", recipientKey, "--signer-key", publicKey, message])
                #expect(known.status == 0 && known.out == text, "\(known.stderr)")
                #expect(known.stderr.contains("; signed by \(signer), verified"), "\(name) \(extra): \(known.stderr)")
                guard extra.isEmpty else { continue }
                let json = try run(["decrypt", "--no-store", "--json", "--identity", recipientKey, "--signer-key=\(publicKey)", message])
                #expect(json.status == 0 && json.out.contains(#""signed_by":"\#(signer)","signature":"verified""#), "\(json.out)")
            }
            // gpg -se -c: a password and a key; opened by the password, the signature checked all the same.
            let both = try gpgOutput(["-r", recipient, "-u", signer, "--sign", "--encrypt", "--symmetric", "--s2k-count", "65536"], "both\n", passphrase: "pw for -c")
            let out = dir.url.appendingPathComponent("out-\(name)").path
            let binary = try run(["decrypt", "--no-store", "--verbose", "--binary", "--password-file", passwords, "--signer-key", publicKey, "-o", out, both])
            #expect(binary.status == 0 && binary.errLines.contains("rwsecret: signed by \(signer), verified"), "\(binary.stderr)")
            #expect(try String(contentsOfFile: out, encoding: .utf8) == "both\n")
            // -o never replaces a file the run reads: a --signer-key file is one (73).
            let before = try Data(contentsOf: URL(fileURLWithPath: publicKey))
            let replacing = try run(["decrypt", "--no-store", "--binary", "--password-file", passwords, "--signer-key", publicKey, "-o", publicKey, both])
            #expect(replacing.status == 73 && replacing.errLines.count == 1, "\(replacing.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: publicKey)) == before)
        }
        // A --signer-key that is not a key: one line, 65, before anything is read.
        let notKey = dir.file("not-a-key.asc", "hello\n")
        let refused = try run(["decrypt", "--no-store", "--signer-key", notKey, "--identity", recipientKey, dir.file("unread", "x\n")])
        #expect(refused.status == 65 && refused.errLines.count == 1 && refused.stderr.contains("not an OpenPGP public key"), "\(refused.stderr)")
    }

    @Test("the store's OpenPGP identities are known signers: a message opened by a stored key, signed by another stored key, is verified")
    func storedSigner() throws {
        defer { stopAgent() }
        let recipient = try makeKey("Stored", "ed25519", subkey: "cv25519")
        let signer = try makeKey("Colleague", "rsa3072", subkey: "rsa3072")
        for fingerprint in [recipient, signer] {
            let imported = try run(["--store", "file", "identity", "import", "--file", try export(fingerprint, secret: true)])
            #expect(imported.status == 0, "\(imported.stderr)")
        }
        let message = try gpgOutput(["-r", recipient, "-u", signer, "--sign", "--encrypt"], "from a colleague\n")
        let opened = try run(["--store", "file", "--verbose", "decrypt", message])
        #expect(opened.status == 0 && opened.out == "from a colleague\n", "\(opened.stderr)")
        #expect(opened.stderr.contains("signed by \(signer), verified"), "\(opened.stderr)")
    }

    @Test("a SHA-1 signature (gpg --digest-algo SHA1) is not verified, saying why, even with its key known; the plaintext is released (0)")
    func sha1Signature() throws {
        defer { stopAgent() }
        let recipient = try makeKey("Sha1Rcpt", "ed25519", subkey: "cv25519")
        let signer = try makeKey("Sha1Signer", "rsa3072")
        let message = try gpgOutput(["-r", recipient, "-u", signer, "--digest-algo", "SHA1", "--sign", "--encrypt"], "old hash\n")
        let opened = try run(["decrypt", "--no-store", "--verbose", "--identity", try export(recipient, secret: true), "--signer-key", try export(signer, secret: false), message])
        #expect(opened.status == 0 && opened.out == "old hash\n", "\(opened.stderr)")
        #expect(opened.stderr.contains("signed by \(signer), not verified (its hash, SHA1, is one RFC 9580 forbids, not checked)"), "\(opened.stderr)")
    }

    /// Wraps an OpenPGP packet stream (argv[1]) into an SKESK v4 (salted S2K, SHA-256, AES-256)
    /// and a SEIPD v1 packet with its MDC, for the password in argv[2]: a message whose
    /// encryption verifies whatever its packets inside say (a signature changed on the way).
    static let wrapScript = """
import sys, os, hashlib
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
inner = open(sys.argv[1], "rb").read()
password = open(sys.argv[2], "rb").read().rstrip(b"\\n")
def packet(tag, body):
    n = len(body)
    if n < 192: head = bytes([n])
    elif n < 8384: head = bytes([((n - 192) >> 8) + 192, (n - 192) & 0xff])
    else: head = b"\\xff" + n.to_bytes(4, "big")
    return bytes([0xC0 | tag]) + head + body
salt = os.urandom(8)
key = hashlib.sha256(salt + password).digest()
prefix = os.urandom(16)
prefix += prefix[-2:]
plain = prefix + inner + b"\\xd3\\x14"
plain += hashlib.sha1(plain).digest()
enc = Cipher(algorithms.AES(key), modes.CFB(bytes(16))).encryptor()
body = b"\\x01" + enc.update(plain) + enc.finalize()
sys.stdout.buffer.write(packet(3, bytes([4, 9, 1, 8]) + salt) + packet(18, body))
"""

    func wrap(_ packets: [UInt8], password: String) throws -> String {
        let inner = dir.file("inner-\(UUID().uuidString)", bytes: packets)
        let passwordFile = dir.file("wrap-password", password + "\n")
        let script = dir.file("wrap.py", Self.wrapScript)
        let made = try RWSecretProcess.run([script, inner, passwordFile], environment: ProcessInfo.processInfo.environment,
                                           directory: dir.url, executable: URL(fileURLWithPath: "/usr/bin/python3"))
        try #require(made.status == 0, "python3 with cryptography (make deps): \(made.stderr)")
        return dir.file("wrapped-\(UUID().uuidString).gpg", bytes: Array(made.stdout))
    }

    @Test("a bad signature from a known key: said on stderr (BAD signature from FINGERPRINT), the plaintext written, exit 1 (text, --binary, JSON)")
    func badSignature() throws {
        defer { stopAgent() }
        let passwords = dir.file("passwords", "wrap pw\n")
        for algorithm in ["ed25519", "rsa3072"] {
            let signer = try makeKey("Bad-\(algorithm)", algorithm)
            let publicKey = try export(signer, secret: false)
            // gpg -s with no compression: one-pass signature, literal data, signature.
            let signed = Array(try Data(contentsOf: URL(fileURLWithPath: try gpgOutput(["-z", "0", "-u", signer, "--sign"], "pay 100 to alice\n"))))
            let index = try #require((0..<(signed.count - 3)).first { signed[$0..<($0 + 3)] == ArraySlice(Array("100".utf8)) })
            var changed = signed
            changed[index] = UInt8(ascii: "9")
            let good = try wrap(signed, password: "wrap pw")
            let bad = try wrap(changed, password: "wrap pw")
            // The control: the same wrapping of gpg's own bytes verifies.
            let control = try run(["decrypt", "--no-store", "--verbose", "--password-file", passwords, "--signer-key", publicKey, good])
            #expect(control.status == 0 && control.out == "pay 100 to alice\n" && control.stderr.contains("signed by \(signer), verified"), "\(control.stderr)")
            let text = try run(["decrypt", "--no-store", "--password-file", passwords, "--signer-key", publicKey, bad])
            #expect(text.status == 1 && text.out == "pay 900 to alice\n", "\(text.stderr)")
            #expect(text.errLines.count == 1 && text.stderr.contains("BAD signature from \(signer)"), "\(text.stderr)")
            let out = dir.url.appendingPathComponent("bad-\(algorithm)").path
            let binary = try run(["decrypt", "--no-store", "--verbose", "--binary", "--password-file", passwords, "--signer-key", publicKey, "-o", out, bad])
            #expect(binary.status == 1 && binary.errLines.contains("rwsecret: signed by \(signer), BAD signature"), "\(binary.stderr)")
            #expect(binary.stderr.contains("BAD signature from \(signer)"), "\(binary.stderr)")
            #expect(try String(contentsOfFile: out, encoding: .utf8) == "pay 900 to alice\n")
            let json = try run(["decrypt", "--no-store", "--json", "--password-file", passwords, "--signer-key", publicKey, bad])
            #expect(json.status == 1 && json.out.contains(#""signed_by":"\#(signer)","signature":"BAD signature""#), "\(json.out)")
            // Unknown key: the bad signature cannot be told from a good one, so it is not verified (0).
            let unknown = try run(["decrypt", "--no-store", "--verbose", "--password-file", passwords, bad])
            #expect(unknown.status == 0 && unknown.stderr.contains("signed by \(signer), not verified"), "\(unknown.stderr)")
        }
    }

    @Test("RFC 9580 A.4's v6 key signs and receives a message (fixture made by pysequoia): verified, said with its 64-hex fingerprint")
    func rfc9580Key() throws {
        let folder = KindCommandTests.kinds.appendingPathComponent("openpgp-rfc9580")
        let key = dir.file("a4.asc", bytes: Array(try Data(contentsOf: folder.appendingPathComponent("a4-v6-secret-key.asc"))))
        chmod(key, 0o600)
        let message = folder.appendingPathComponent("a4-signed-encrypted.asc").path
        let opened = try run(["decrypt", "--no-store", "--verbose", "--identity", key, message])
        #expect(opened.status == 0 && opened.out == "signed by the RFC key\n", "\(opened.stderr)")
        #expect(opened.stderr.contains("signed by CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9, verified"), "\(opened.stderr)")
        let json = try run(["decrypt", "--no-store", "--json", "--identity", key, message])
        #expect(json.out.contains(#""signed_by":"CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9","signature":"verified""#), "\(json.out)")
    }


    /// A signer and a recipient of each v6 suite (Ed25519 + X25519, Ed448 + X448, ECDSA P-384),
    /// a signed message from one to the other; prints each signer's fingerprint.
    static let sequoiaScript = """
import sys, os
import pysequoia as ps
folder = sys.argv[1]
for suite in ["Cv25519", "Cv448", "P384"]:
    signer = ps.Tsk.generate(f"signer {suite} <s@example.org>", profile=ps.Profile.RFC9580, cipher_suite=getattr(ps.CipherSuite, suite))
    recipient = ps.Tsk.generate(f"recipient {suite} <r@example.org>", profile=ps.Profile.RFC9580, cipher_suite=getattr(ps.CipherSuite, suite))
    message = ps.encrypt(signer=signer.signer(), recipients=[recipient.extract_certificate()], bytes=b"v6 signed\\n")
    open(os.path.join(folder, suite + ".pgp"), "wb").write(message if isinstance(message, bytes) else message.encode())
    for name, value in [("recipient", str(recipient)), ("signer", str(signer.extract_certificate()))]:
        path = os.path.join(folder, f"{suite}-{name}.asc")
        open(path, "w").write(value)
        os.chmod(path, 0o600)
    print(suite, signer.extract_certificate().fingerprint)
"""

    @Test("v6 (pysequoia): Ed25519, Ed448, ECDSA P-384 signatures in SEIPD v2, said with the 64-hex fingerprint",
          .enabled(if: Peers.sequoiaPython != nil, "needs python3 with pysequoia (pip install pysequoia)"))
    func sequoiaV6() throws {
        let python = try #require(Peers.sequoiaPython)
        let script = dir.file("v6.py", Self.sequoiaScript)
        let made = try RWSecretProcess.run(Array(python.dropFirst()) + [script, dir.path], environment: RWSecretProcess.environment(home: dir.url),
                                           directory: dir.url, executable: URL(fileURLWithPath: python[0]))
        try #require(made.status == 0, "\(made.stderr)")
        try #require(made.outLines.count == 3, "\(made.out)")
        for line in made.outLines {
            let suite = String(line.split(separator: " ")[0])
            let message = dir.url.appendingPathComponent("\(suite).pgp").path
            let key = dir.url.appendingPathComponent("\(suite)-recipient.asc").path
            let unknown = try run(["decrypt", "--no-store", "--verbose", "--identity", key, message])
            #expect(unknown.status == 0 && unknown.out == "v6 signed\n", "\(unknown.stderr)")
            // pysequoia signs with a signing subkey: its v6 fingerprint (64 hex digits) is said.
            let said = try #require(unknown.stderr.firstMatch(of: /signed by ([0-9A-F]+), not verified\n/)?.1, "\(unknown.stderr)")
            let fingerprint = String(said)
            #expect(fingerprint.count == 64)
            let known = try run(["decrypt", "--no-store", "--verbose", "--identity", key, "--signer-key", dir.url.appendingPathComponent("\(suite)-signer.asc").path, message])
            #expect(known.status == 0 && known.stderr.contains("signed by \(fingerprint), verified"), "\(suite): \(known.stderr)")
        }
    }
}

/// LibrePGP's AEAD packet (tag 20) after a PKESK v3, as gpg 2.4 writes to keys that announce
/// AEAD: Fixtures/kinds/openpgp-librepgp-keys (rnp -e --aead=ocb|eax to RSA and cv25519 keys).
@Suite("decrypt: LibrePGP AEAD (tag 20) to a key, with --identity and a stored identity")
struct OpenPGPLibrePGPKeyCommandTests {
    let dir = TemporaryFolder()
    static let folder = KindCommandTests.kinds.appendingPathComponent("openpgp-librepgp-keys")
    static let text = "to a key, sealed with LibrePGP's AEAD ✓\n"

    func path(_ file: String) -> String { Self.folder.appendingPathComponent(file).path }

    func run(_ args: [String]) throws -> RWSecretProcess.Result {
        let env = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": "a vault passphrase long enough"])
        return try RWSecretProcess.run(args, environment: env, directory: dir.url)
    }

    /// A copy of a fixture key, 0600 (as an identity file must be).
    func key(_ name: String) throws -> String {
        let copy = dir.file(name, bytes: Array(try Data(contentsOf: Self.folder.appendingPathComponent(name))))
        chmod(copy, 0o600)
        return copy
    }

    @Test("each fixture opens with --identity KEY and with the key stored; a tampered copy: one line, nothing released",
          arguments: ["rsa-ocb.pgp", "rsa-eax.pgp", "rsa-ocb-zlib.asc", "cv25519-ocb.pgp", "cv25519-eax.pgp"])
    func opens(_ file: String) throws {
        let keyFile = try key(file.hasPrefix("rsa") ? "rsa.sec.asc" : "cv25519.sec.asc")
        let byFile = try run(["decrypt", "--no-store", "--verbose", "--identity", keyFile, path(file)])
        #expect(byFile.status == 0 && byFile.out == Self.text, "\(byFile.stderr)")
        let imported = try run(["--store", "file", "identity", "import", "mine", "--file", keyFile])
        #expect(imported.status == 0, "\(imported.stderr)")
        let byStore = try run(["--store", "file", "--verbose", "decrypt", path(file)])
        #expect(byStore.status == 0 && byStore.out == Self.text && byStore.stderr.contains("opened by identity mine"), "\(byStore.stderr)")
        guard file.hasSuffix(".pgp") else { return }
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path(file))))
        bytes[bytes.count - 20] ^= 0x01
        let tampered = dir.file("tampered.pgp", bytes: bytes)
        let out = dir.url.appendingPathComponent("out").path
        let failed = try run(["decrypt", "--no-store", "--binary", "--identity", keyFile, "-o", out, tampered])
        #expect(failed.status == 1 && failed.errLines.count == 1 && failed.stderr.contains("LibrePGP AEAD"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let lines = try run(["decrypt", "--no-store", "--identity", keyFile, tampered])
        #expect(lines.status == 1 && lines.out.isEmpty && lines.errLines.count == 1, "\(lines.stderr)")
    }
}
