import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The peer tools the OpenPGP suites run beside rwsecret: each in the test's own folder, with
/// the folder as HOME, so nothing reaches the user's keys or agents.
enum Peers {
    /// A peer tool's path, or the test fails saying how to install it.
    static func tool(_ name: String) throws -> String {
        try #require(["/usr/bin/\(name)", "/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }, "\(name) is not installed (make deps)")
    }

    /// `words` run by /bin/sh in `folder` (each quoted), with `suffix` (redirections) after them.
    @discardableResult
    static func shell(_ words: [String], suffix: String = "", stdin: Data = Data(), in folder: TemporaryFolder) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(["-c", words.map { "'\($0)'" }.joined(separator: " ") + suffix], stdin: stdin,
                                environment: RWSecretProcess.environment(home: folder.url), directory: folder.url,
                                executable: URL(fileURLWithPath: "/bin/sh"))
    }

    /// python3 with pysequoia (Sequoia 2: v6 keys), else nil.
    static let sequoiaPython: [String]? = {
        for command in [PeerPython.command, ["/usr/bin/env", "python3"]] {
            let probe = try? RWSecretProcess.run(Array(command.dropFirst()) + ["-c", "import pysequoia"], environment: ProcessInfo.processInfo.environment,
                                                 executable: URL(fileURLWithPath: command[0]))
            if probe?.status == 0 { return command }
        }
        return nil
    }()
}

/// Debian's gpg in a private GNUPGHOME (`gnupg` in the test's folder, mode 0700, made on first
/// use): batch mode, every key trusted, passphrases by loopback.
struct PrivateGnuPG {
    let folder: TemporaryFolder
    /// The GNUPGHOME (another one than `gnupg` for a second keyring in the same test).
    var home: String

    init(in folder: TemporaryFolder, name: String = "gnupg") {
        self.folder = folder
        home = folder.url.appendingPathComponent(name).path
    }

    /// gpg with an empty passphrase, or `passphrase` from a 0600 file on fd 3 (never in argv).
    @discardableResult
    func run(_ args: [String], passphrase: String? = nil, stdin: Data = Data()) throws -> RWSecretProcess.Result {
        if !FileManager.default.fileExists(atPath: home) {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var suffix = ""
        if let passphrase {
            let file = folder.file("gpg-passphrase", passphrase)
            chmod(file, 0o600)
            suffix = " 3<'\(file)'"
        }
        return try Peers.shell([try Peers.tool("gpg"), "--homedir", home, "--batch", "--yes", "--trust-model", "always", "--pinentry-mode", "loopback"]
                               + (passphrase == nil ? ["--passphrase", ""] : ["--passphrase-fd", "3"]) + args,
                               suffix: suffix, stdin: stdin, in: folder)
    }

    /// The fingerprint of the first key `query` lists.
    func fingerprint(_ query: String) throws -> String {
        let list = try run(["--list-keys", "--with-colons", query])
        let line = try #require(list.out.split(separator: "\n").first { $0.hasPrefix("fpr:") }, "\(list.stderr)")
        return String(line.split(separator: ":", omittingEmptySubsequences: false)[9])
    }

    /// Stops the home's gpg-agent (a test's `defer`).
    func stopAgent() {
        _ = try? RWSecretProcess.run(["--homedir", home, "--kill", "gpg-agent"], environment: RWSecretProcess.environment(home: folder.url),
                                     directory: folder.url, executable: URL(fileURLWithPath: "/usr/bin/gpgconf"))
    }
}
