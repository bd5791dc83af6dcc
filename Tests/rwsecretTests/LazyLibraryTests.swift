import Foundation
import Testing

/// zlib, libbz2 and libargon2 are loaded with dlopen when an OpenPGP message first needs them
/// (issue 36): where one is missing, that message fails with one line naming it, and nothing is
/// released. "Missing" for real: in a user and mount namespace (`unshare -rm`), /dev/null is
/// bind-mounted over the library's file, so the loader cannot load it.
@Suite("decrypt: libraries loaded on first use", .enabled(if: Namespaces.work, "needs unshare -rm (user and mount namespaces)"))
struct LazyLibraryTests {
    init() { brokenPipesIgnored }

    let dir = TemporaryFolder()

    /// The library's real file (`libz.so.1` is a link to it).
    static func library(_ name: String) -> String {
        URL(fileURLWithPath: "/usr/lib/x86_64-linux-gnu/" + name).resolvingSymlinksInPath().path
    }

    func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { UInt8(String(Array(text)[$0..<$0 + 2]), radix: 16)! }
    }

    /// `rwsecret decrypt --no-store --password-file PW FILE` with `hidden` bind-mounted over by /dev/null.
    func decrypt(_ file: String, password: [UInt8], hiding hidden: String?) throws -> RWSecretProcess.Result {
        let pw = dir.file("pw", bytes: password + [0x0a])
        let path = KindCommandTests.kinds.appendingPathComponent(file).path
        let mount = hidden.map { "mount --bind /dev/null '\($0)' && " } ?? ""
        return try RWSecretProcess.run(["-rm", "sh", "-c", mount + "exec \"$0\" decrypt --no-store --password-file \"$1\" \"$2\"",
                                        RWSecretProcess.executable.path, pw, path],
                                       environment: RWSecretProcess.environment(home: dir.url), directory: dir.url,
                                       executable: URL(fileURLWithPath: "/usr/bin/unshare"))
    }

    @Test("a ZLIB packet without zlib, a BZip2 packet without libbz2: one line naming the library, nothing released", arguments: [
        ("openpgp/aes256-sha256-zlib.gpg", "33643364765e5d2d4426384059", "libz.so.1",
         "compressed data needs zlib, which is missing (libz.so.1: apt install zlib1g)"),
        ("openpgp/aes192-sha512-bzip2.gpg", "4b534a616a6955257d3954414b", "libbz2.so.1.0",
         "BZip2 compressed data needs libbz2, which is missing (libbz2.so.1.0: apt install libbz2-1.0)"),
    ])
    func compressionLibraryMissing(_ file: String, _ password: String, _ library: String, _ words: String) throws {
        let opened = try decrypt(file, password: hex(password), hiding: nil)
        #expect(opened.status == 0 && !opened.stdout.isEmpty, "\(opened.stderr)")
        let result = try decrypt(file, password: hex(password), hiding: Self.library(library))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.errLines == ["rwsecret: \(KindCommandTests.kinds.appendingPathComponent(file).path):1: OpenPGP message: \(words)"])
    }

    @Test("an RNCryptor message opens with all three missing (main's binary did not start: 127)")
    func rncryptorNeedsNone() throws {
        let pw = dir.file("pw", "right\n")
        let env = RWSecretProcess.environment(home: dir.url)
        let message = try RWSecretProcess.run(["encrypt", "--password-file", pw], stdin: Data("a small secret\n".utf8), environment: env)
        #expect(message.status == 0, "\(message.stderr)")
        let file = dir.file("msg", bytes: Array(message.stdout))
        let mounts = ["libz.so.1", "libbz2.so.1.0", "libargon2.so.1"].map { "mount --bind /dev/null '\(Self.library($0))' && " }.joined()
        let result = try RWSecretProcess.run(["-rm", "sh", "-c", mounts + "exec \"$0\" decrypt --no-store --password-file \"$1\" \"$2\"",
                                              RWSecretProcess.executable.path, pw, file],
                                             environment: env, directory: dir.url, executable: URL(fileURLWithPath: "/usr/bin/unshare"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.out == "a small secret\n")
    }

    @Test("an Argon2 S2K without libargon2: one line naming it, before any memory is asked for")
    func argon2Missing() throws {
        let result = try decrypt("openpgp-rfc9580/a12.1-v4skesk-argon2-aes128.asc", password: Array("password".utf8),
                                 hiding: Self.library("libargon2.so.1"))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("an Argon2 S2K needs libargon2, which is missing (libargon2.so.1: apt install libargon2-1)"), "\(result.stderr)")
        #expect(result.errLines.count == 1, "\(result.errLines)")
    }
}

/// Whether `unshare -rm` can make a user and mount namespace here.
enum Namespaces {
    static let work: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-rm", "true"]
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()
}
