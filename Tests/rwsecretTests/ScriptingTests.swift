import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 35 item 7: what scripts rely on. `decrypt --json` has a record for every input;
/// `status --json` always writes its object and never asks; `password add LABEL` refuses an
/// existing label before the secret is asked; a loose `--password-file` is warned about as a
/// loose `--identity` is. (The progress line's "0/s" is in ProgressLineTests.)
@Suite("scripting: --json records, status --json, password add, loose password files")
struct ScriptingTests {
    let dir = TemporaryFolder()
    static let passphrase = "a vault passphrase long enough"

    func run(_ args: [String], stdin: Data = Data(), extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url, extra: extra), directory: dir.url)
    }

    @Test("decrypt --json: a missing file, a folder and binary data are records too (with the stderr line and the exit status as before)")
    func everyInputHasARecord() throws {
        let ok = dir.file("ok.txt", Messages.password("hello", "pw-1") + "\n")
        let binary = dir.file("bin.dat", bytes: [0x00, 0xff, 0xfe, 0x01, 0x02, 0x80, 0x00, 0x07] + Array(repeating: 0x00, count: 64))
        try FileManager.default.createDirectory(atPath: dir.path + "/folder", withIntermediateDirectories: false)
        let missing = dir.path + "/missing.txt"
        let result = try run(["decrypt", "--no-store", "--json", ok, missing, dir.path + "/folder", binary], extra: ["RWSECRET_PASSWORD": "pw-1"])
        #expect(result.status == 66, "\(result.stderr)")
        let records = result.outLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(records.count == 4, "\(result.out)")
        let sources = records.compactMap { $0["source"] as? String }
        #expect(sources == [ok, missing, dir.path + "/folder", binary], "\(result.out)")
        for record in records.dropFirst() {
            #expect(record["status"] as? String == "failed" && record["line"] is NSNull && record["kind"] is NSNull && record["error"] is String,
                    "\(record)")
        }
        #expect(result.outLines[1] == #"{"source":"\#(missing)","line":null,"kind":null,"status":"failed","error":"No such file or directory"}"#)
        #expect(result.errLines.count == 3, "the lines on stderr stay: \(result.errLines)")
    }

    @Test("--in-band keeps one record per input row: an input that cannot be read has none")
    func inBandHasNoInputRecord() throws {
        let result = try run(["decrypt", "--no-store", "--in-band", dir.path + "/missing.txt"], extra: ["RWSECRET_PASSWORD": "pw-1"])
        #expect(result.status == 66)
        #expect(result.out.isEmpty, "\(result.out)")
    }

    @Test("status --json with no session bus (--store keyring): its object, with problem, and 69")
    func statusWithoutABus() throws {
        var environment = RWSecretProcess.environment(home: dir.url)
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        let result = try RWSecretProcess.run(["--store", "keyring", "status", "--json"], environment: environment, directory: dir.url)
        #expect(result.status == 69, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any], "no object: \(result.out)")
        #expect(object["store"] as? String == "keyring")
        #expect((object["problem"] as? String)?.contains("no D-Bus session bus") == true, "\(object)")
        #expect(object["passwords"] is NSNull && object["locked"] is NSNull)
    }

    @Test("status --json on a terminal never asks for the vault's passphrase: locked, 0", .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func statusNeverPrompts() throws {
        let added = try run(["--store", "file", "password", "add", "p"], stdin: Data("a stored password\n".utf8),
                            extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        try #require(added.status == 0, "\(added.stderr)")
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) --store file status --json", environment: RWSecretProcess.environment(home: dir.url),
                                             timeout: 30)
        #expect(!session.timedOut, "it waited at a prompt: \(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(!session.raw.contains("Vault passphrase: "), "\(session.raw)")
        #expect(session.raw.contains(#""locked":true"#) && session.raw.contains(#""problem":null"#), "\(session.raw)")
    }

    @Test("password add LABEL: an existing label is refused before the secret is asked (65), on a terminal and from stdin",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func existingLabelBeforeTheSecret() throws {
        let environment = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        let added = try run(["--store", "file", "password", "add", "p"], stdin: Data("a stored password\n".utf8),
                            extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        try #require(added.status == 0, "\(added.stderr)")
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) --store file password add p", environment: environment, timeout: 30)
        #expect(!session.timedOut, "it waited at a prompt: \(session.raw)")
        #expect(session.status == 65, "\(session.raw)")
        #expect(!session.raw.contains("Password to store"), "the secret was asked first: \(session.raw)")
        #expect(session.raw.contains("a password labelled 'p' already exists"), "\(session.raw)")
        // From stdin, the same refusal (and a new label still works).
        let again = try run(["--store", "file", "password", "add", "p"], stdin: Data("another\n".utf8), extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        #expect(again.status == 65 && again.errLines == ["rwsecret: a password labelled 'p' already exists"], "\(again.errLines)")
        let other = try run(["--store", "file", "password", "add", "q"], stdin: Data("another\n".utf8), extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        #expect(other.status == 0, "\(other.stderr)")
    }

    @Test("a 0644 --password-file gets the warning a loose --identity gets; a 0600 one none")
    func loosePasswordFile() throws {
        let file = dir.file("m.txt", Messages.password("hello", "pw-1") + "\n")
        let passwords = dir.file("pw.txt", "pw-1\n")
        chmod(passwords, 0o644)
        let loose = try run(["decrypt", "--no-store", "--password-file", passwords, file])
        #expect(loose.status == 0 && loose.out == "hello\n", "\(loose.stderr)")
        #expect(loose.errLines == ["rwsecret: warning: \(passwords): password file with mode 0644 that others can access: chmod 600 it"], "\(loose.errLines)")
        chmod(passwords, 0o600)
        let tight = try run(["decrypt", "--no-store", "--password-file", passwords, file])
        #expect(tight.status == 0 && tight.errLines.isEmpty, "\(tight.errLines)")
    }
}
