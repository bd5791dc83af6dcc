import Foundation
import Testing
import RWSecretKit

/// `rwsecret decrypt` on OpenPGP messages (Fixtures/kinds/openpgp, made by gpg 2.2).
@Suite("decrypt: OpenPGP messages")
struct OpenPGPCommandTests {
    let dir = TemporaryFolder()

    static let folder = KindCommandTests.kinds.appendingPathComponent("openpgp")

    /// The passphrase of `file` in the manifest.
    static func secret(_ file: String) -> [UInt8] {
        let text = (try? String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)) ?? ""
        let fields = text.split(separator: "\n").first { $0.hasPrefix(file + "\t") }!.split(separator: "\t", omittingEmptySubsequences: false)
        return Hex.decode(String(fields[1]))
    }

    func path(_ file: String) -> String { Self.folder.appendingPathComponent(file).path }

    func run(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url, extra: [:]), directory: dir.url)
    }

    @Test("JSON: opened messages say kind openpgp, the password, the literal name and date; refusals are one record each")
    func json() throws {
        let list = dir.file("passwords", bytes: Array("not it\n".utf8) + Self.secret("aes128-sha1-zip.asc") + [0x0a] + Self.secret("sed-no-mdc.gpg") + [0x0a])
        let files = ["aes128-sha1-zip.asc", "sed-no-mdc.gpg", "public-key-only.gpg", "signed-only.gpg", "clear-signed.asc", "twofish.gpg"]
        let result = try run(["decrypt", "--no-store", "--json", "--password-file", list] + files.map(path))
        #expect(result.status == 1)
        let records = try result.stdout.split(separator: 0x0a).map { try #require(JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        try #require(records.count == files.count, "\(result.stdout)")
        #expect(records.allSatisfy { $0["kind"] as? String == "openpgp" })
        #expect(records[0]["plaintext"] as? String == "une ligne de texte ✓\n")
        #expect(records[0]["password"] as? String == "\(list):2")
        #expect(records[0]["literal_name"] as? String == "plain.txt")
        #expect((records[0]["literal_date"] as? String)?.hasSuffix("Z") == true)
        #expect(records[1]["error"] as? String == "OpenPGP message: encrypted without integrity protection (SED packet): unauthenticated, refused")
        #expect((records[2]["error"] as? String)?.hasPrefix("an OpenPGP message encrypted to key ") == true, "\(records[2])")
        #expect((records[2]["error"] as? String)?.hasSuffix(", which no identity holds (import its secret key: rwsecret identity import KEYFILE)") == true)
        #expect((records[3]["error"] as? String)?.hasSuffix("not encrypted") == true)
        #expect((records[4]["error"] as? String)?.hasSuffix("not encrypted") == true)
        #expect((records[5]["error"] as? String)?.contains("Twofish") == true)
        #expect(!result.stderr.contains(String(decoding: Self.secret("sed-no-mdc.gpg"), as: UTF8.self)))
    }

    @Test("--binary: the plaintext at -o only once the MDC is checked; a tampered copy leaves nothing there, one line, status 1")
    func binary() throws {
        let file = "aes192-sha512-bzip2.gpg"
        let list = dir.file("passwords", bytes: Array("not it\n".utf8) + Self.secret(file) + [0x0a])
        let out = dir.url.appendingPathComponent("out").path
        let result = try run(["decrypt", "--no-store", "--verbose", "--binary", "--password-file", list, "-o", out, path(file)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errLines.contains("rwsecret: kind: openpgp"))
        #expect(result.errLines.contains("rwsecret: opened by: \(list):2 (tried 2)"), "\(result.errLines)")
        #expect(result.errLines.contains { $0.hasPrefix("rwsecret: literal data: file name \"plain.txt\", date ") }, "\(result.errLines)")
        #expect(FileManager.default.contents(atPath: out)?.count == 4096)
        var bytes = Array(try Data(contentsOf: Self.folder.appendingPathComponent(file)))
        bytes[bytes.count - 3] ^= 0x40
        let tampered = dir.file("tampered.gpg", bytes: bytes)
        let out2 = dir.url.appendingPathComponent("out2").path
        let failed = try run(["decrypt", "--no-store", "--binary", "--password-file", list, "-o", out2, tampered])
        #expect(failed.status == 1)
        #expect(failed.errLines.count == 1 && failed.errLines[0].contains("OpenPGP message: payload does not authenticate"), "\(failed.errLines)")
        #expect(!FileManager.default.fileExists(atPath: out2))
        // From stdin, to stdout.
        let piped = try run(["decrypt", "--no-store", "--binary", "--password-file", list, "-o", out2],
                            stdin: try Data(contentsOf: Self.folder.appendingPathComponent(file)))
        #expect(piped.status == 0 && FileManager.default.contents(atPath: out2)?.count == 4096, "\(piped.stderr)")
    }

    @Test("the literal packet's file name is shown, never used as a path (gpg --set-filename; gpg itself keeps only the last component)")
    func literalNameIsNotAPath() throws {
        let gpg = try #require(["/usr/bin/gpg", "/bin/gpg"].first { FileManager.default.isExecutableFile(atPath: $0) }, "gpg is not installed (make deps)")
        let home = dir.url.appendingPathComponent("gnupg").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let passphrase = dir.file("passphrase", "pass ✓")
        chmod(passphrase, 0o600)
        let message = dir.url.appendingPathComponent("m.gpg").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "'\(gpg)' --homedir '\(home)' --batch --pinentry-mode loopback --passphrase-fd 3 --s2k-count 65536 --set-filename ../escape -o '\(message)' -c 3<'\(passphrase)'; gpgconf --homedir '\(home)' --kill gpg-agent"]
        process.standardInput = FileHandle(forReadingAtPath: dir.file("plain", "escape\n"))
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let list = dir.file("passwords", "pass ✓\n")
        let sub = dir.url.appendingPathComponent("sub").path
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--json", "--password-file", list, message], stdin: Data(),
                                             environment: RWSecretProcess.environment(home: dir.url, extra: [:]), directory: URL(fileURLWithPath: sub))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("\"literal_name\":\"escape\""))
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("\"plaintext\":\"escape\\n\""))
        #expect(!FileManager.default.fileExists(atPath: sub + "/escape"))
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("escape").path))
    }

    /// `gpg -c` of `plain` with `passphrase` and `--compress-algo compress`, made in this test's folder.
    func gpgEncrypt(_ plain: String, passphrase: String, compress: String) throws -> String {
        let gpg = try #require(["/usr/bin/gpg", "/bin/gpg"].first { FileManager.default.isExecutableFile(atPath: $0) }, "gpg is not installed (make deps)")
        let home = dir.url.appendingPathComponent("gnupg").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let message = dir.url.appendingPathComponent("m-\(compress).gpg").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "'\(gpg)' --homedir '\(home)' --batch --yes --pinentry-mode loopback --passphrase-fd 3 --s2k-count 65536 --compress-algo \(compress) -o '\(message)' -c '\(plain)' 3<'\(passphrase)'; gpgconf --homedir '\(home)' --kill gpg-agent"]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return message
    }

    /// The plaintext is written once: decrypted, parsed and written to the unnamed file that -o
    /// links in, the MDC checked at the end. It was spooled to a private file and then parsed
    /// into the output: strace counted 16 MiB written for 8 MiB.
    @Test("--binary -o: an 8 MiB gpg -c message is written once (strace: bytes written), not spooled first",
          .enabled(if: PrivateKeyring.executable("strace") != nil, "strace is not installed (make test installs it)"))
    func writtenOnce() throws {
        let size = 8 << 20
        let plain = dir.file("plain", bytes: Array(repeating: 0x61, count: size))
        let passphrase = dir.file("passphrase", "pass ✓")
        chmod(passphrase, 0o600)
        let message = try gpgEncrypt(plain, passphrase: passphrase, compress: "none")
        let list = dir.file("passwords", "pass ✓\n")
        let out = dir.url.appendingPathComponent("out").path
        let trace = dir.url.appendingPathComponent("trace").path
        let strace = URL(fileURLWithPath: try #require(PrivateKeyring.executable("strace")))
        let result = try RWSecretProcess.run(["-f", "-e", "trace=write,pwrite64,writev,pwritev,pwritev2,sendfile,copy_file_range,splice", "-o", trace,
                                              RWSecretProcess.executable.path, "decrypt", "--no-store", "--binary", "--password-file", list, "-o", out, message],
                                             stdin: Data(), environment: RWSecretProcess.environment(home: dir.url, extra: [:]), directory: dir.url, executable: strace)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: out) == FileManager.default.contents(atPath: plain))
        // Each call's result, the number after its last " = ".
        let written = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").reduce(0) { total, line in
            guard let range = line.range(of: " = ", options: .backwards) else { return total }
            return total + max(0, Int(line[range.upperBound...].prefix { $0.isNumber || $0 == "-" }) ?? 0)
        }
        #expect(written >= size && written < size + size / 4, "\(written) bytes written for \(size)")
    }

    /// Issue 32: a `gpg -c` zlib bomb with a wrong MDC was inflated into OUT's folder first
    /// (64 MiB written for a 64 KiB message); now the compressed stream is spooled, the MDC
    /// checked, and nothing inflated: what is written stays within the message's size.
    @Test("--binary -o: a zlib bomb with a wrong MDC writes no more than its own size (strace), and leaves nothing",
          .enabled(if: PrivateKeyring.executable("strace") != nil, "strace is not installed (make test installs it)"))
    func bombWithWrongMDC() throws {
        let plain = dir.file("plain", bytes: Array(repeating: 0, count: 64 << 20))
        let passphrase = dir.file("passphrase", "pass ✓")
        chmod(passphrase, 0o600)
        var message = try Array(Data(contentsOf: URL(fileURLWithPath: gpgEncrypt(plain, passphrase: passphrase, compress: "zlib"))))
        message[message.count - 1] ^= 1
        let bomb = dir.file("bomb.gpg", bytes: message)
        let list = dir.file("passwords", "pass ✓\n")
        let out = dir.url.appendingPathComponent("out").path
        let trace = dir.url.appendingPathComponent("trace").path
        let strace = URL(fileURLWithPath: try #require(PrivateKeyring.executable("strace")))
        let result = try RWSecretProcess.run(["-f", "-e", "trace=write,pwrite64,writev,pwritev,pwritev2,sendfile,copy_file_range,splice", "-o", trace,
                                              RWSecretProcess.executable.path, "decrypt", "--no-store", "--binary", "--password-file", list, "-o", out, bomb],
                                             stdin: Data(), environment: RWSecretProcess.environment(home: dir.url, extra: [:]), directory: dir.url, executable: strace)
        #expect(result.status == 1 && result.errLines.count == 1 && result.errLines[0].contains("modification detection code"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let written = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").reduce(0) { total, line in
            guard let range = line.range(of: " = ", options: .backwards) else { return total }
            return total + max(0, Int(line[range.upperBound...].prefix { $0.isNumber || $0 == "-" }) ?? 0)
        }
        #expect(written <= message.count + 4096, "\(written) bytes written for a message of \(message.count)")
    }

    @Test("an armored block inside an e-mail (text before BEGIN and after END), from a file: opens; LibrePGP OCB from rnp opens")
    func armorInsideText() throws {
        let folder = KindCommandTests.kinds.appendingPathComponent("openpgp-librepgp")
        let armored = try String(contentsOf: folder.appendingPathComponent("ocb-zlib.asc"), encoding: .utf8)
        let mail = dir.file("mail.txt", "Hi Bob,\n\nhere it is:\n\n" + armored + "\n-- \nAlice\n")
        let list = dir.file("passwords", "libre ✓ pgp\n")
        let result = try run(["decrypt", "--no-store", "--password-file", list, mail])
        #expect(result.status == 0 && String(decoding: result.stdout, as: UTF8.self) == "une ligne de texte ✓\n", "\(result.stderr)")
        let eax = try run(["decrypt", "--no-store", "--binary", "--password-file", list, folder.appendingPathComponent("eax.pgp").path])
        #expect(eax.status == 0 && String(decoding: eax.stdout, as: UTF8.self) == "une ligne de texte ✓\n", "\(eax.stderr)")
    }

    @Test("an Argon2 S2K of t=255, m=2 GiB is refused at once, naming its cost and --max-kdf-cost (status 1, one line)")
    func argon2Cost() throws {
        let text = String(decoding: try Data(contentsOf: KindCommandTests.kinds.appendingPathComponent("openpgp-rfc9580/a12.1-v4skesk-argon2-aes128.asc")), as: UTF8.self)
        var bytes = try #require(Data(base64Encoded: text.split(separator: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty && !$0.hasPrefix("=") }.joined()).map { Array($0) })
        bytes[21] = 255
        let list = dir.file("passwords", "password\n")
        let result = try run(["decrypt", "--no-store", "--password-file", list, dir.file("argon.gpg", bytes: bytes)])
        #expect(result.status == 1 && result.errLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("510 GiB") && result.stderr.contains("--max-kdf-cost 510G"), "\(result.stderr)")
        let bad = try run(["decrypt", "--no-store", "--max-kdf-cost", "lots", "--password-file", list, dir.file("argon2.gpg", bytes: bytes)])
        #expect(bad.status == 64 && bad.stderr.contains("--max-kdf-cost must be a size"), "\(bad.stderr)")
    }

    @Test("--binary -o: a byte changed in the last MiB of an 8 MiB gpg -c message (stored, zlib) leaves nothing at -o and nothing in its folder",
          arguments: ["none", "zlib"])
    func tamperedLastChunk(_ compress: String) throws {
        let plain = dir.file("plain", bytes: (0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        let passphrase = dir.file("passphrase", "pass ✓")
        chmod(passphrase, 0o600)
        let message = try Array(Data(contentsOf: URL(fileURLWithPath: gpgEncrypt(plain, passphrase: passphrase, compress: compress))))
        let list = dir.file("passwords", "pass ✓\n")
        let folder = dir.url.appendingPathComponent("outputs")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let out = folder.appendingPathComponent("out").path
        let opened = try run(["decrypt", "--no-store", "--binary", "--password-file", list, "-o", out, dir.file("m", bytes: message)])
        #expect(opened.status == 0 && FileManager.default.contents(atPath: out) == FileManager.default.contents(atPath: plain), "\(opened.stderr)")
        try FileManager.default.removeItem(atPath: out)
        for back in [3, 30, 5000, 600_000] where back < message.count {
            var copy = message
            copy[copy.count - back] ^= 0x08
            let failed = try run(["decrypt", "--no-store", "--binary", "--password-file", list, "-o", out, dir.file("t", bytes: copy)])
            #expect(failed.status == 1, "\(back) from the end: \(failed.stderr)")
            #expect(failed.errLines.count == 1 && failed.errLines[0].contains("modification detection code does not match"), "\(back): \(failed.errLines)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "\(back) from the end: something left at -o's folder")
        }
    }

    @Test("--binary --verbose --jobs 3: RFC 9580's EAX sample (SEIPD v2) opens with the third password; the cost line names the S2K and 3 at once")
    func seipdV2() throws {
        let sample = KindCommandTests.kinds.appendingPathComponent("openpgp-rfc9580/a9-v6skesk-aes128-eax.asc").path
        let list = dir.file("passwords", bytes: Array("one\ntwo\npassword\n".utf8))
        let out = dir.url.appendingPathComponent("out").path
        let result = try run(["decrypt", "--no-store", "--verbose", "--jobs", "3", "--binary", "--password-file", list, "-o", out, sample])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: out) == Data("Hello, world!".utf8))
        #expect(result.errLines.contains("rwsecret: opened by: \(list):3 (tried 3)"), "\(result.errLines)")
        #expect(result.errLines.contains { $0.hasPrefix("rwsecret: OpenPGP iterated S2K (65011712 bytes hashed): 64 KiB per try, 3 tried, 3 at once (memory budget ") },
                "\(result.errLines)")
    }
}
