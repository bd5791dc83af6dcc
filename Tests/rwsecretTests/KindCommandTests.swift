import Foundation
import Testing
import RWSecretKit

/// `rwsecret decrypt --binary` on age and Ansible Vault files (Fixtures/kinds, made by the peers).
@Suite("decrypt --binary: age and Ansible Vault files")
struct KindCommandTests {
    let dir = TemporaryFolder()

    static let kinds: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Fixtures/kinds/manifest.tsv").path) { folder.deleteLastPathComponent() }
        return folder.appendingPathComponent("Fixtures/kinds")
    }()

    /// The manifest row of `file`: its secret's bytes and its plaintext's SHA-256.
    static func row(_ file: String) -> (secret: [UInt8], sha256: String) {
        let text = (try? String(contentsOf: kinds.appendingPathComponent("manifest.tsv"), encoding: .utf8)) ?? ""
        let fields = text.split(separator: "\n").first { $0.hasPrefix(file + "\t") }!.split(separator: "\t", omittingEmptySubsequences: false)
        return (Hex.decode(String(fields[3])), String(fields[6]))
    }

    func path(_ file: String) -> String {
        // An identity file others can read gets a warning: the tests use a private copy.
        guard file == "age-identity.txt" else { return Self.kinds.appendingPathComponent(file).path }
        let copy = dir.file(file, bytes: Array((try? Data(contentsOf: Self.kinds.appendingPathComponent(file))) ?? Data()))
        chmod(copy, 0o600)
        return copy
    }

    func run(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url, extra: [:]), directory: dir.url)
    }

    /// A password file: a wrong password, then `secret`.
    func passwords(_ secret: [UInt8]) -> String { dir.file("passwords", bytes: Array("not it\n".utf8) + secret + [0x0a]) }

    @Test("an age -p file and an Ansible Vault open with the second password of a run's file (tried 2), from a file and from stdin",
          arguments: ["age-scrypt-unicode.age", "ansible-1.2-prod.vault", "ansible-1.1-empty.vault"])
    func passwordKinds(_ file: String) throws {
        let (secret, sha256) = Self.row(file)
        let list = passwords(secret)
        let result = try run(["decrypt", "--no-store", "--verbose", "--binary", "--password-file", list, path(file)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sha256Hex(Array(result.stdout)) == sha256)
        #expect(result.errLines.contains("rwsecret: kind: \(file.hasPrefix("age") ? "age" : "ansible-vault")"), "\(result.errLines)")
        #expect(result.errLines.contains("rwsecret: opened by: \(list):2 (tried 2)"), "\(result.errLines)")
        #expect(!result.stderr.contains(String(decoding: secret, as: UTF8.self)))
        if file.hasPrefix("age") {
            #expect(result.errLines.contains { $0.hasPrefix("rwsecret: scrypt work factor 18: 256 MiB per try, 2 tried, ") }, "the cost of the tries, said")
        }
        if file.hasPrefix("ansible") {
            let piped = try run(["decrypt", "--no-store", "--binary", "--password-file", list], stdin: try Data(contentsOf: Self.kinds.appendingPathComponent(file)))
            #expect(piped.status == 0 && sha256Hex(Array(piped.stdout)) == sha256, "\(piped.stderr)")
        }
    }

    @Test("--identity opens an age file to X25519 recipients, armored from stdin, to -o only once verified")
    func identity() throws {
        let out = dir.url.appendingPathComponent("out").path
        let armored = try Data(contentsOf: Self.kinds.appendingPathComponent("age-x25519-armored.age"))
        let result = try run(["decrypt", "--no-store", "--identity", path("age-identity.txt"), "--binary", "-o", out], stdin: armored)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sha256Hex(Array(try Data(contentsOf: URL(fileURLWithPath: out)))) == Self.row("age-x25519-armored.age").sha256)
        // The same file cut short: nothing at -o, one line, status 1.
        let cut = dir.file("cut.age", bytes: Array(try Data(contentsOf: Self.kinds.appendingPathComponent("age-x25519.age")).prefix(40_000)))
        let out2 = dir.url.appendingPathComponent("out2").path
        let failed = try run(["decrypt", "--no-store", "--identity", path("age-identity.txt"), "--binary", "-o", out2, cut])
        #expect(failed.status == 1)
        #expect(!FileManager.default.fileExists(atPath: out2))
        #expect(failed.errLines.count == 1, "\(failed.errLines)")
    }

    @Test("what cannot open says why in one line: no identity given, recipients that are not ours (their types), a bad identity file")
    func hints() throws {
        let noIdentity = try run(["decrypt", "--no-store", "--binary", "--password-file", passwords([0x61]), path("age-x25519.age")])
        #expect(noIdentity.status == 1)
        #expect(noIdentity.errLines == ["rwsecret: \(path("age-x25519.age")): an age file for X25519 recipients: no identity given opens it (give --identity FILE, or store one: rwsecret identity import)"])
        let foreign = try run(["decrypt", "--no-store", "--binary", "--identity", path("age-identity.txt"), path("age-foreign-recipient.age")])
        #expect(foreign.status == 1)
        #expect(foreign.errLines == ["rwsecret: \(path("age-foreign-recipient.age")): an age file for X25519 recipients: none of the 1 identities opens it (give the key it was made for with --identity FILE)"])
        #expect(foreign.stdout.isEmpty)
        let bad = dir.file("bad-identity", "AGE-SECRET-KEY-1NOTAKEY\n")
        let refused = try run(["decrypt", "--no-store", "--binary", "--identity", bad, path("age-x25519.age")])
        #expect(refused.status == 65)
        #expect(refused.errLines == ["rwsecret: \(bad): line 1: not an age identity (AGE-SECRET-KEY-1…)"])
    }

    /// Whole files and YAML values need no --binary: each is a record of its own among the
    /// RNCryptor lines of the same run, in input order, with its kind (and key) in JSON.
    @Test("one run mixes RNCryptor lines, whole age and Ansible files and YAML !vault values; JSON says each record's kind, key and password")
    func mixedRun() throws {
        let rn = dir.file("rn.txt", Messages.password("hello rn", "rn-pw") + "\n")
        var list: [UInt8] = []
        for (file, row) in [("ansible-1.1.vault", 1), ("age-scrypt-unicode.age", 1), ("ansible-values.yml", 1), ("ansible-values.yml", 2)] {
            let text = (try? String(contentsOf: Self.kinds.appendingPathComponent("manifest.tsv"), encoding: .utf8)) ?? ""
            let fields = text.split(separator: "\n").filter { $0.hasPrefix(file + "\t") }[row - 1].split(separator: "\t", omittingEmptySubsequences: false)
            list += Hex.decode(String(fields[3])) + [0x0a]
        }
        list += Array("rn-pw\n".utf8)
        let passwords = dir.file("passwords", bytes: list)
        let files = [rn, path("ansible-1.1.vault"), path("age-scrypt-unicode.age"), path("ansible-values.yml"), path("age-x25519-armored.age"),
                     path("age-foreign-recipient.age"), rn]
        let result = try run(["decrypt", "--no-store", "--json", "--password-file", passwords, "--identity", path("age-identity.txt")] + files)
        let records = try result.stdout.split(separator: 0x0a).map { try JSONSerialization.jsonObject(with: Data($0)) as! [String: Any] }
        #expect(records.map { $0["kind"] as? String } == ["rncryptor", "ansible-vault", "age", "ansible-vault", "ansible-vault", "age", "age", "rncryptor"])
        #expect(records.map { $0["status"] as? String } == ["decrypted", "decrypted", "decrypted", "decrypted", "decrypted", "decrypted", "failed", "decrypted"])
        #expect(records.map { $0["password"] as? String } == ["\(passwords):5", "\(passwords):1", "\(passwords):2", "\(passwords):3", "\(passwords):4",
                                                             "identity \(path("age-identity.txt"))", nil, "\(passwords):5"])
        #expect(records[3]["key"] as? String == "db_password" && records[3]["line"] as? Int == 3)
        #expect(records[4]["key"] as? String == "api_token" && records[4]["line"] as? Int == 10)
        #expect(records[1]["plaintext"] as? String == "db_password: hunter2\n")
        #expect(records[2]["plaintext"] as? String == "a line of text\n")
        #expect(records[6]["error"] as? String == "an age file for X25519 recipients: none of the 1 identities opens it (give the key it was made for with --identity FILE)")
        #expect(result.status == 1)
        // Text: a whole file's plaintext as it is (no newline added), a value's with one.
        let text = try run(["decrypt", "--no-store", "--password-file", passwords, path("ansible-1.1.vault"), path("ansible-values.yml"), rn])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(String(decoding: text.stdout, as: UTF8.self).hasPrefix("db_password: hunter2\ns3cr3t ✓\ntok-"))
        #expect(String(decoding: text.stdout, as: UTF8.self).hasSuffix("\nhello rn\n"))
    }

    @Test("--in-band and --id-column read lines only: a whole Ansible Vault file there is one record per line, none of another kind")
    func linesOnlyModes() throws {
        let lines = (try String(contentsOf: Self.kinds.appendingPathComponent("ansible-1.1.vault"), encoding: .utf8)).split(separator: "\n").count
        let result = try run(["decrypt", "--no-store", "--in-band", "--password-file", passwords(Self.row("ansible-1.1.vault").secret), path("ansible-1.1.vault")])
        let records = try result.stdout.split(separator: 0x0a).map { try JSONSerialization.jsonObject(with: Data($0)) as! [String: Any] }
        #expect(records.count == lines)
        // Each hex row is a record of its own (--in-band joins no rows): never a record of
        // another kind, never decrypted.
        #expect(records.allSatisfy { $0["kind"] as? String == "rncryptor" && ["failed", "skipped"].contains($0["status"] as? String) })
        #expect(records.contains { $0["status"] as? String == "failed" })
    }

    @Test("a malformed OpenPGP message, armored or binary, in line mode or --binary: one line naming the kind, status 1")
    func malformedOpenPGP() throws {
        let armored = dir.file("m.asc", "-----BEGIN PGP MESSAGE-----\n\njA0ECQMCexample\n-----END PGP MESSAGE-----\n")
        let binary = dir.file("m.gpg", bytes: [0x8c, 0x0d, 0x04, 0x09, 0x03, 0x02] + Array(repeating: 0x41, count: 40))
        for file in [armored, binary] {
            for mode in [[], ["--binary"]] {
                let result = try run(["decrypt", "--no-store", "--password-file", passwords([0x61])] + mode + [file])
                #expect(result.status == 1)
                #expect(result.errLines.count == 1 && result.errLines[0].contains(": OpenPGP message: "), "\(result.errLines)")
            }
        }
    }
}

func sha256Hex(_ bytes: [UInt8]) -> String { Hex.encode(KindPrimitives.sha256(bytes)) }
