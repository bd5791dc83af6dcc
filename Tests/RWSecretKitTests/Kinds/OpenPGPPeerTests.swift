import Foundation
@testable import RWSecretKit
import Testing

/// `gpg -c` messages made fresh at every run by Debian's gnupg 2.2 (`make test` installs it), with
/// a private GNUPGHOME: every cipher, S2K digest and mode, and compression it offers, armored and
/// binary, random ASCII and Unicode passphrases, empty and 1 MiB plaintexts. The plaintext goes
/// to gpg on stdin (so the encrypted data comes in partial body lengths); the passphrase through
/// `--passphrase-fd 3`, opened by the shell from a 0600 file, never on argv.
@Suite("gpg -c messages made by gnupg 2.2 itself", .serialized)
struct OpenPGPPeerTests {
    let folder = TemporaryFolder()

    struct Form: CustomTestStringConvertible, Sendable {
        let options: [String]
        let unicode: Bool
        let size: Int
        var testDescription: String { options.joined(separator: " ") + " \(unicode ? "unicode" : "ascii") \(size) bytes" }
    }

    static let forms: [Form] = [
        Form(options: ["--cipher-algo", "AES", "--s2k-digest-algo", "SHA1", "--compress-algo", "none"], unicode: false, size: 0),
        Form(options: ["--cipher-algo", "AES192", "--s2k-digest-algo", "SHA224", "--compress-algo", "zip", "--armor"], unicode: true, size: 1 << 20),
        Form(options: ["--cipher-algo", "AES256", "--s2k-digest-algo", "SHA256", "--compress-algo", "zlib"], unicode: false, size: 1 << 20),
        Form(options: ["--cipher-algo", "CAMELLIA128", "--s2k-digest-algo", "SHA384", "--compress-algo", "bzip2"], unicode: true, size: 5000),
        Form(options: ["--cipher-algo", "CAMELLIA192", "--s2k-digest-algo", "SHA512", "--compress-algo", "zip"], unicode: false, size: 1),
        Form(options: ["--cipher-algo", "CAMELLIA256", "--s2k-digest-algo", "RIPEMD160", "--compress-algo", "zlib", "--armor"], unicode: true, size: 0),
        Form(options: ["--cipher-algo", "CAST5", "--s2k-digest-algo", "MD5", "--compress-algo", "bzip2", "--armor"], unicode: false, size: 1 << 20),
        Form(options: ["--cipher-algo", "3DES", "--s2k-mode", "1", "--s2k-digest-algo", "SHA1", "--compress-algo", "none"], unicode: true, size: 70_000),
        Form(options: ["--cipher-algo", "BLOWFISH", "--s2k-mode", "0", "--s2k-digest-algo", "SHA256", "--compress-algo", "zip"], unicode: false, size: 300),
        Form(options: ["--cipher-algo", "AES256", "--s2k-mode", "1", "--s2k-digest-algo", "MD5", "--compress-algo", "bzip2"], unicode: true, size: 0),
        Form(options: ["--cipher-algo", "AES256", "--s2k-mode", "0", "--s2k-digest-algo", "SHA512", "--armor"], unicode: false, size: 1 << 20),
    ]

    /// gpg with a private home; the passphrase (when given) on descriptor 3, from a 0600 file.
    func gpg(_ options: [String], passphrase: String?, stdin: [UInt8]) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let gpg = try #require(Peers.find("gpg"), "gpg is not installed: `make deps` (or apt-get install gnupg) installs it")
        let home = folder.path + "/gnupg"
        if !FileManager.default.fileExists(atPath: home) { try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) }
        var fd = ""
        if let passphrase {
            let file = folder.file("passphrase", passphrase)
            chmod(file, 0o600)
            fd = " 3<'\(file)'"
        }
        let command = ([gpg, "--homedir", home, "--batch", "--yes", "--pinentry-mode", "loopback"] + (passphrase == nil ? [] : ["--passphrase-fd", "3"]) + options)
            .map { "'\($0)'" }.joined(separator: " ") + fd
        return try Peers.run(["/bin/sh", "-c", command], input: stdin, in: folder)
    }

    @Test("each message opens with its passphrase as the second of the chain (tried 2); tampered copies release nothing", arguments: forms)
    func roundTrip(_ form: Form) throws {
        defer { stopAgent() }
        let passphrase = Peers.randomPassword(unicode: form.unicode)
        let plaintext = Peers.plaintext(form.size)
        let made = try gpg(["--s2k-count", "65536"] + form.options + ["--symmetric", "-o", "-"], passphrase: passphrase, stdin: plaintext)
        try #require(made.status == 0, "gpg failed: \(made.stderr)")
        let message = made.stdout
        #expect(MessageKinds.detect(ArraySlice(message.prefix(detectionLength))) == OpenPGPKind.self)
        let right = Array(passphrase.utf8)
        switch openPGP(message, [Array((passphrase + "x").utf8), right]).result {
        case .success(let opened):
            #expect(opened.plaintext == plaintext, "passphrase \(passphrase)")
            #expect(opened.index == 1 && opened.tried == 2)
        case .failure(let error):
            Issue.record("passphrase \(passphrase): \(error)")
        }
        let armored = form.options.contains("--armor")
        for (position, copy) in Peers.tampered(message, count: form.size > 4096 ? 3 : 12) {
            if armored && !message[position].isBase64Letter { continue }
            let (result, sunk) = openPGP(copy, [right])
            if case .success(let opened) = result, opened.plaintext == plaintext, armored {
                continue  // A changed armor line that decodes to the same bytes (a header, a letter after the padding).
            }
            if case .success(let opened) = result, opened.plaintext == plaintext, position == 0, message[0] & 0x40 == 0,
               copy[0] == 0xc0 | (message[0] >> 2) & 0x0f, message[0] & 3 == 0 {
                // The first packet's old-format header (a one-byte length) made the new-format
                // header of the same packet, with the same length byte: the same message, which
                // opens and is authenticated as before (1 change in 255 of byte 0 does it).
                continue
            }
            #expect(!result.isSuccess, "byte \(position) of \(message.count) changed, still opened")
            #expect(sunk == 0 || result.isSuccess)
        }
    }

    @Test("gpg's default S2K count (65,011,712 bytes hashed) opens too, and costs one derivation per wrong passphrase")
    func defaultCount() throws {
        defer { stopAgent() }
        let passphrase = Peers.randomPassword(unicode: true)
        let made = try gpg(["--s2k-count", "65011712", "--symmetric", "-o", "-"], passphrase: passphrase, stdin: Array("default count\n".utf8))
        try #require(made.status == 0, "gpg failed: \(made.stderr)")
        #expect(try openPGP(made.stdout, [Array(passphrase.utf8)]).result.get().plaintext == Array("default count\n".utf8))
    }

    @Test("gpg --rfc2440 (SED, no MDC) and Twofish are refused with their one line")
    func refused() throws {
        defer { stopAgent() }
        let passphrase = Peers.randomPassword(unicode: false)
        for (options, line) in [(["--rfc2440", "--cipher-algo", "CAST5"], "unauthenticated, refused"), (["--cipher-algo", "TWOFISH"], "Twofish")] {
            let made = try gpg(["--s2k-count", "65536"] + options + ["--symmetric", "-o", "-"], passphrase: passphrase, stdin: Array("x\n".utf8))
            try #require(made.status == 0, "gpg failed: \(made.stderr)")
            guard case .failure(.refused(let why)) = openPGP(made.stdout, [Array(passphrase.utf8)]).result else { Issue.record("not refused"); continue }
            #expect(why.contains(line), "\(why)")
        }
    }

    /// Stops the gpg-agent that gpg started for the private home.
    func stopAgent() {
        guard let gpgconf = Peers.find("gpgconf") else { return }
        _ = try? Peers.run([gpgconf, "--homedir", folder.path + "/gnupg", "--kill", "gpg-agent"], in: folder)
    }
}
