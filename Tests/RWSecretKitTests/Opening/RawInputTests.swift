import Foundation
import Glibc
import RWSecretKit
import SystemPackage
import Testing

/// Issue 33 item 4: one raw input of any kind (`rwsecret decrypt --binary`) through the public
/// API alone (`Decryption.RawInput`, `Decryption.open(_:threads:to:askingAfter:)`): its first
/// bytes read once (a stream's handed on to the verified stream or the other kind), told by the
/// kind registry; the run's chain, then the reporter's password; what it holds instead when it
/// is no raw message. Before, this was `package` API that only the tool used (`make thin-check`
/// listed 23 uses in BinaryDecryption.swift), and none of it compiled here.
@Suite("Decryption.RawInput: one raw input of any kind, through the public API")
struct RawInputTests {
    @Test("ConsumerRawInput.swift typechecks as a consumer's file: RawInput, the raw open and the async opens are public API")
    func consumerFileIsPublic() throws {
        let errors = try PublicAPITests.typecheckFile("ConsumerRawInput.swift", besideTest: #filePath)
        #expect(errors.isEmpty, "\(errors)")
    }

    static func run(_ passwords: [String], reporter: (any DecryptionReporter)? = nil) -> Decryption {
        let chain = passwords.enumerated().map { ChainPassword(name: "p\($0.offset)", secret: SecretBytes(utf8: $0.element)) }
        return Decryption(client: PasswordClient(runOnly: chain) { nil }, reporter: reporter)
    }

    /// `bytes` in a regular file (opened for reading), or in a pipe whose writer is closed.
    static func input(_ bytes: [UInt8], pipe usePipe: Bool) throws -> FileDescriptor {
        if usePipe {
            precondition(bytes.count < 60_000, "more than a pipe holds")
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            #expect(bytes.withUnsafeBytes { write(fds[1], $0.baseAddress!, $0.count) } == bytes.count)
            close(fds[1])
            return FileDescriptor(rawValue: fds[0])
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rwsecret-raw-\(getpid())-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { unlink(path) }
        return try FileDescriptor.open(FilePath(path), .readOnly)
    }

    /// Opens `bytes` as a file or a pipe; the outcome, and what went to the output.
    static func open(_ bytes: [UInt8], pipe usePipe: Bool, with decryption: Decryption, askingAfter what: String? = nil) throws -> (ConsumerRawInput.Outcome, [UInt8]) {
        let input = try Self.input(bytes, pipe: usePipe)
        defer { try? input.close() }
        let output = FileDescriptor(rawValue: fileno(tmpfile()!))
        let outcome = try ConsumerRawInput.open(input, with: decryption, to: output, askingAfter: what)
        return (outcome, try Self.written(output))
    }

    static func written(_ output: FileDescriptor) throws -> [UInt8] {
        var written = [UInt8](repeating: 0, count: 1 << 16)
        let n = written.withUnsafeMutableBytes { pread(output.rawValue, $0.baseAddress!, $0.count, 0) }
        return Array(written[..<max(0, n)])
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent("kinds/\(name)")))
    }

    @Test("a raw RNCryptor message opens from a regular file and from a pipe (its first bytes handed on): the chain's password that fits, the plaintext only in the output")
    func rncryptor() throws {
        let plaintext = Array("raw plaintext\n".utf8) + [UInt8](repeating: 7, count: 3000)
        let message = RNCryptor.encrypt(plaintext, password: SecretBytes(utf8: "right"))
        for usePipe in [false, true] {
            let (outcome, written) = try Self.open(message, pipe: usePipe, with: Self.run(["wrong", "right"]))
            #expect(outcome.kind == "rncryptor")
            #expect(outcome.failure == nil)
            #expect(outcome.openedBy == "p1")
            #expect(written == plaintext, "pipe: \(usePipe)")
        }
        let (failed, nothing) = try Self.open(message, pipe: true, with: Self.run(["wrong"]))
        #expect(failed.failure?.code == .noPasswordOpened)
        #expect(failed.failure?.tried == 1)
        #expect(nothing.isEmpty)
    }

    @Test("a whole message of another kind, from a regular file and from a pipe, is handed back and opens with the chain")
    func otherKind() throws {
        let vault = try Self.fixture("ansible-1.1.vault")
        for usePipe in [false, true] {
            let (outcome, written) = try Self.open(vault, pipe: usePipe, with: Self.run(["wrong", "5m;UwAv]4|"]))
            #expect(outcome.kind == "\(MessageOpener.Kind.ansibleVault)")
            #expect(outcome.openedBy == "p1")
            #expect(outcome.plaintext.map { String(decoding: $0, as: UTF8.self) } == "db_password: hunter2\n")
            #expect(written.isEmpty)
        }
    }

    @Test("an input that is no raw message says what it is instead: base64 text, YAML with or without !vault values, text, a damaged age file")
    func instead() throws {
        let base64 = Array((RNCryptor.Base64.encode(RNCryptor.encrypt(Array("x".utf8), password: SecretBytes(utf8: "pw"))) + "\n").utf8)
        let yamlWithVault = Array("secret: !vault |\n".utf8) + (try Self.fixture("ansible-1.1.vault")).split(separator: 0x0a).flatMap { Array("  ".utf8) + $0 + [0x0a] }
        let cases: [([UInt8], Decryption.RawInput.Instead?)] = [
            (base64, .base64Text),
            (Array("key: value\nother: 1\n".utf8), .yamlWithoutVault),
            (yamlWithVault, .yamlWithVaultValues),
            (Array("Hello, this is prose.\n".utf8), .text),
            (Array("age-encryptiom.org/v1\n-> X25519 abc\n".utf8), .damagedAgeFile),
        ]
        for (bytes, instead) in cases {
            let (outcome, written) = try Self.open(bytes, pipe: false, with: Self.run(["pw"]))
            #expect(outcome.instead == instead, "\(String(decoding: bytes.prefix(20), as: UTF8.self))")
            #expect(outcome.failure?.code == .format)
            #expect(outcome.failure?.formatError != nil)
            #expect(written.isEmpty)
        }
        // From a pipe, base64 text is said too (the bytes read are what tells it).
        #expect(try Self.open(base64, pipe: true, with: Self.run(["pw"])).0.instead == .base64Text)
    }

    // Issue 33 items 4/5: the RNCryptor stream asks no kind registry (it may live in a target
    // without the other kinds). Its public form says `notRNCryptor` for an input whose first byte
    // is no RNCryptor version (another kind, base64 text, as before, and now other binary data,
    // which was `format`/unknownVersion), and `format` for a damaged RNCryptor header.
    @Test("VerifiedStream alone: notRNCryptor for an input whose first byte is no RNCryptor version, format for a header cut short")
    func streamAlone() throws {
        let client = PasswordClient(runOnly: [ChainPassword(name: "p", secret: SecretBytes(utf8: "pw"))]) { nil }
        let cases: [([UInt8], DecryptionFailure.Code)] = [
            (try Self.fixture("ansible-1.1.vault"), .notRNCryptor),
            (Array("QUJD\n".utf8), .notRNCryptor),
            ([0x50, 0x4b, 0x03, 0x04] + [UInt8](repeating: 0, count: 100), .notRNCryptor),
            ([0x03, 0x01, 0x02], .format),
        ]
        for (bytes, code) in cases {
            let input = try Self.input(bytes, pipe: true)
            defer { try? input.close() }
            let output = FileDescriptor(rawValue: fileno(tmpfile()!))
            do {
                _ = try VerifiedStream().decrypt(input: input, client: client, to: .descriptor(output))
                Issue.record("opened \(bytes.prefix(4))")
            } catch {
                #expect(error.code == code, "\(bytes.prefix(4))")
            }
        }
    }

    @Test("when no password of the chain opens a regular file, the reporter's password is tried on it, read again from its start; a pipe is not asked about")
    func askingAfter() throws {
        let plaintext = Array("asked for\n".utf8)
        let message = RNCryptor.encrypt(plaintext, password: SecretBytes(utf8: "typed"))
        let reporter = WholeMessageTests.Answering("typed")
        let (outcome, written) = try Self.open(message, pipe: false, with: Self.run(["wrong"], reporter: reporter), askingAfter: "file.bin")
        #expect(outcome.openedBy == "prompt")
        #expect(written == plaintext)
        #expect(reporter.asked == ["file.bin"])

        let notAsked = WholeMessageTests.Answering("typed")
        let (failed, nothing) = try Self.open(message, pipe: true, with: Self.run(["wrong"], reporter: notAsked), askingAfter: "-")
        #expect(failed.failure?.code == .noPasswordOpened)
        #expect(notAsked.asked.isEmpty)
        #expect(nothing.isEmpty)

        // The reporter's password fails too: the chain's failure, as without asking.
        let wrong = WholeMessageTests.Answering("also wrong")
        let (still, _) = try Self.open(message, pipe: false, with: Self.run(["wrong"], reporter: wrong), askingAfter: "file.bin")
        #expect(still.failure?.code == .noPasswordOpened)
        #expect(still.failure?.tried == 1)
        #expect(wrong.asked == ["file.bin"])
    }

    // Issue 33, item 6: `Decryption.open` of a whole message had no async form: in async code it
    // read the store and derived its keys on the task's own thread (a Swift concurrency thread).
    @Test("the async opens of a whole message and of a raw input read the store and derive their keys on the library's scheduler pool")
    func asyncFormsRunOnTheScheduler() async throws {
        let plaintext = Array("async\n".utf8)
        let store = MessageOpenerTests.PoolCheckingStore()  // its one password: "pw"
        let decryption = Decryption(client: PasswordClient(runOnly: []) { store })
        let age = await Age.encrypt(plaintext, passphrase: SecretBytes(utf8: "pw"), workFactor: 10)
        let message = try #require(Decryption.WholeMessage(bytes: age))
        let opened = try await decryption.open(message, identities: IdentityChain(files: []), memory: 64 << 20).get()
        #expect(opened.plaintext == plaintext)
        #expect(opened.openedBy.passwordName == "app")
        #expect(store.reads.withLock { $0 } == [true])

        let input = try Self.input(age, pipe: true)
        defer { try? input.close() }
        let output = FileDescriptor(rawValue: fileno(tmpfile()!))
        let outcome = try await ConsumerRawInput.openAsync(input, with: Decryption(client: PasswordClient(runOnly: []) { store }), to: output)
        #expect(outcome.plaintext == plaintext)
        #expect(store.reads.withLock { $0 } == [true, true])

        let raw = await RNCryptor.encrypt(plaintext, password: SecretBytes(utf8: "pw"))
        let rawInput = try Self.input(raw, pipe: false)
        defer { try? rawInput.close() }
        let rawOutcome = try await ConsumerRawInput.openAsync(rawInput, with: Decryption(client: PasswordClient(runOnly: []) { store }), to: output)
        #expect(rawOutcome.openedBy == "app")
        #expect(try Self.written(output).prefix(plaintext.count) == plaintext[...])
        #expect(store.reads.withLock { $0 } == [true, true, true])
        #expect(!Scheduler.shared.isPoolThread)
    }
}
