import Foundation
import Testing
import RWSecretKit

/// What a run asks of OpenSSL on the way to its answer (issue 36, item 4), counted by an
/// `LD_PRELOAD` shim on the calls that make OpenSSL 3 build its tables, not timed.
///
/// - A provider fetch (`EVP_MD_fetch`, `EVP_CIPHER_fetch`): the first one of a process fills
///   the name map and builds every algorithm of its kind, about 0.35 ms. One RNCryptor message
///   needs none: AES-256-CBC, SHA-256 and SHA-1 come from OpenSSL's built-in method tables.
///   The SHA kernel's known answers hashed a 70-byte password with the one-shot `SHA1()`
///   (`EVP_Q_digest`, a fetch), so every run on a CPU with SHA-NI paid it. Callgrind never saw
///   it: valgrind has no SHA-NI, so under it the kernel is never checked.
/// - The legacy name table (`EVP_add_cipher`, `EVP_add_digest`): OpenSSL fills it with every
///   cipher and digest before its first fetch, unless the program said it needs none
///   (`OpenSSLStart.withoutLegacyNames()`, which both of the tool's programs call first).
///   Kinds that fetch (age, OpenPGP) then skip 157 additions and their copy into the name map.
///
/// Calls inside libcrypto reach the shim too: libcrypto calls its exported functions through
/// its PLT, as `EVP_Q_digest` calls `EVP_MD_fetch`.
@Suite("decrypt: what a run asks of OpenSSL", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "no C compiler for the shim"))
struct OpenSSLCallsTests {
    let dir = TemporaryFolder()

    /// Runs `arguments` under the shim (Tests/release/openssl-calls.c); returns the result and how often each counted function was called.
    func calls(_ arguments: [String], stdin: Data = Data()) throws -> (RWSecretProcess.Result, [String: Int]) {
        let shim = try Shim.buildRelease("openssl-calls", in: dir.url)
        let log = dir.url.appendingPathComponent("calls-\(UUID().uuidString)").path
        let environment = RWSecretProcess.environment(home: dir.url, extra: ["LD_PRELOAD": shim, "RWS_OPENSSL_CALLS": log])
        let result = try RWSecretProcess.run(arguments, stdin: stdin, environment: environment, directory: dir.url)
        var counts: [String: Int] = [:]
        for name in (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n") ?? [] { counts[String(name), default: 0] += 1 }
        return (result, counts)
    }

    @Test("one RNCryptor message, a short or a 70-byte password: no provider fetch, no legacy name (before: 2 EVP_MD_fetch, 136 EVP_add_cipher, 21 EVP_add_digest where the CPU has SHA-NI; the long password's on any CPU)",
          arguments: ["right", String(repeating: "long password ", count: 5)])
    func oneMessage(password: String) throws {
        let message = dir.file("msg", Messages.password("a small secret", password) + "\n")
        let passwords = dir.file("pw", password + "\n")
        let (result, counts) = try calls(["decrypt", "--no-store", "--password-file", passwords, message])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.out == "a small secret\n")
        #expect(counts.isEmpty, "\(counts)")
    }

    @Test("an age file to an X25519 identity: what it fetches, with no legacy name added (before: 136 EVP_add_cipher, 21 EVP_add_digest)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/age") && FileManager.default.isExecutableFile(atPath: "/usr/bin/age-keygen")))
    func ageFile() throws {
        let key = dir.url.appendingPathComponent("key.txt").path
        let keygen = try RWSecretProcess.run(["-o", key], environment: RWSecretProcess.environment(home: dir.url), executable: URL(fileURLWithPath: "/usr/bin/age-keygen"))
        try #require(keygen.status == 0, "\(keygen.stderr)")
        let file = dir.url.appendingPathComponent("secret.age").path
        let age = try RWSecretProcess.run(["-e", "-i", key, "-o", file], stdin: Data("opened by age\n".utf8), environment: RWSecretProcess.environment(home: dir.url),
                                          executable: URL(fileURLWithPath: "/usr/bin/age"))
        try #require(age.status == 0, "\(age.stderr)")
        let (result, counts) = try calls(["decrypt", "--no-store", "--identity", key, file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.out == "opened by age\n")
        #expect(counts["EVP_add_cipher"] == nil && counts["EVP_add_digest"] == nil, "\(counts)")
        // The shim does see this run's calls: age's ChaCha20-Poly1305 is fetched.
        #expect((counts["EVP_CIPHER_fetch"] ?? 0) + (counts["EVP_MD_fetch"] ?? 0) > 0, "\(counts)")
    }

    @Test("the whole tool (encrypt, in rwsecret-commands): no legacy name added either")
    func wholeTool() throws {
        let passwords = dir.file("pw", "right\n")
        let (result, counts) = try calls(["encrypt", "--password-file", passwords], stdin: Data("a small secret\n".utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.out.isEmpty)
        #expect(counts["EVP_add_cipher"] == nil && counts["EVP_add_digest"] == nil, "\(counts)")
    }
}
