import Foundation
import Testing

extension CoreImageTests {
    /// Issue 35: a passphrase-protected OpenSSH RSA key (Botan's bcrypt-pbkdf, OpenSSL's
    /// AES-256-CTR) used by `decrypt --identity`, its passphrase typed on a real terminal: at
    /// exit, the core image holds neither the passphrase nor 24 bytes of the key's private
    /// exponent d (big-endian, as the key file and every buffer of rwsecret's hold it).
    @Test(.enabled(if: PseudoTerminal.isAvailable && ["/usr/bin/ssh-keygen", "/usr/bin/age", "/usr/bin/openssl"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }))
    func aPassphraseProtectedRSAKeyLeavesNeitherPassphraseNorKey() throws {
        let dir = TemporaryFolder()
        let environment = RWSecretProcess.environment(home: dir.url)
        func tool(_ path: String, _ arguments: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
            try RWSecretProcess.run(arguments, stdin: stdin, environment: environment, executable: URL(fileURLWithPath: path))
        }
        let passphrase = "core-rsa-\(UInt64.random(in: 0...UInt64.max))"
        let key = dir.path + "/id_rsa"
        try #require(try tool("/usr/bin/ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-N", passphrase, "-f", key]).status == 0)
        let message = key + ".age"
        try #require(try tool("/usr/bin/age", ["-R", key + ".pub", "-o", message], stdin: Data("opened for the core\n".utf8)).status == 0)
        // d, from an unprotected PEM copy of the key (OpenSSL's text form of it).
        let copy = dir.path + "/copy"
        try FileManager.default.copyItem(atPath: key, toPath: copy)
        try #require(try tool("/usr/bin/ssh-keygen", ["-q", "-p", "-m", "PEM", "-P", passphrase, "-N", "", "-f", copy]).status == 0)
        let text = try tool("/usr/bin/openssl", ["rsa", "-in", copy, "-noout", "-text"]).out
        try FileManager.default.removeItem(atPath: copy)
        let hex = text.components(separatedBy: "privateExponent:").last?.components(separatedBy: "prime1:").first?
            .filter { $0.isHexDigit } ?? ""
        let d = stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(Array(hex)[$0...$0 + 1]), radix: 16) }.drop { $0 == 0 }
        try #require(d.count > 200, "\(text)")
        // 24 bytes of d that grep can take as one fixed string (no NUL, no line end).
        let start = try #require((0..<d.count - 24).first { at in !d.dropFirst(at).prefix(24).contains { $0 == 0 || $0 == 0x0a || $0 == 0x0d } })
        let needle = Array(d.dropFirst(start).prefix(24))
        _ = dir.file("needle-exponent", bytes: needle + [0x0a])
        _ = dir.file("needle-passphrase", passphrase + "\n")
        let shim = try Shim.build(Self.pauseAtExit, named: "pause-at-exit", in: dir.url)
        // As `copies`, but rwsecret runs on the terminal (it asks on /dev/tty), its output in files.
        let script = dir.file("measure.sh", Self.pausedCoreScript(counting: ["passphrase", "exponent"]))
        var shell = environment
        shell["SHIM"] = shim
        shell["DIR"] = dir.path
        shell["RWSECRET"] = RWSecretProcess.executable.path
        let session = try PseudoTerminal.run("/bin/bash '\(script)' decrypt --no-store --identity '\(key)' '\(message)'", environment: shell,
                                             answers: [("Enter passphrase for", passphrase)], timeout: 120)
        #expect(!session.timedOut, "\(session.raw)")
        let counts = Self.counts(session.lines)
        func value(_ name: String) -> Int? { counts[name] }
        let out = (try? String(contentsOfFile: dir.path + "/out", encoding: .utf8)) ?? ""
        #expect(value("status") == 0, "\(session.raw)")
        #expect(out.hasPrefix("opened for the core"), "\(out)")
        #expect(value("passphrase") == 0, "copies of the key's passphrase in the core image: \(session.raw)")
        #expect(value("exponent") == 0, "copies of the key's private exponent in the core image: \(session.raw)")
    }
}
