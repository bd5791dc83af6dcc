import Dispatch
import Glibc
import RWSecretKit
import SystemPackage
import Testing

/// Issue 33 item 4: what `rwsecret decrypt` does with each message row, through the library's
/// public API alone (`Decryption`, `DecryptionReporter`): a legacy version refused before any
/// key or store, an empty chain said before any work, the last winner first across messages
/// and jobs, and the one password a reporter (the terminal) gives when nothing opens a message.
@Suite("Decryption: a run of many messages, through the public API")
struct DecryptionTests {
    /// The message rows of `text` (read from a pipe, as a consumer holding a descriptor would).
    static func messages(_ text: String) throws -> [MessageRows.Message] {
        try MessageRowsTests.rows(text).compactMap { row in
            if case .message(let message) = row.content { return message }
            return nil
        }
    }

    static func encrypt(_ plaintext: String, _ password: String) -> String {
        RNCryptor.Base64.encode(RNCryptor.encrypt(Array(plaintext.utf8), password: SecretBytes(utf8: password)))
    }

    /// A reporter that answers once with `answer`, and counts the asks.
    final class Answering: DecryptionReporter, @unchecked Sendable {
        let answer: String?
        var asked: [String] = []
        init(_ answer: String?) { self.answer = answer }
        func password(afterNoneOpened what: String) -> ChainPassword? {
            asked.append(what)
            return answer.map { ChainPassword(name: "prompt", secret: SecretBytes(utf8: $0)) }
        }
    }

    @Test("each message opens with the chain's password that fits, the last winner first; an empty chain is said before any work")
    func rowsOpen() throws {
        let text = [Self.encrypt("one", "b"), Self.encrypt("two", "b"), Self.encrypt("three", "a")].joined(separator: "\n") + "\n"
        let client = PasswordClient(runOnly: [ChainPassword(name: "a", secret: SecretBytes(utf8: "a")),
                                              ChainPassword(name: "b", secret: SecretBytes(utf8: "b"))]) { nil }
        let decryption = Decryption(client: client, options: Decryption.Options(jobs: 2))
        #expect(decryption.options.jobs == 2)
        var opened: [String] = []
        let derivedBefore = Decryption.keyDerivations
        for (position, message) in try Self.messages(text).enumerated() {
            let attempt = try decryption.attempt(message)
            #expect(attempt.failure == nil && !attempt.chainIsEmpty)
            let decrypted = try attempt.open(threads: 1, position: position, naming: "line \(position + 1)").get()
            decryption.finished(openedBy: decrypted.openedBy)
            opened.append(String(decoding: decrypted.plaintext, as: UTF8.self) + " by " + (decrypted.openedBy.passwordName ?? "?"))
        }
        #expect(opened == ["one by b", "two by b", "three by a"])
        // Each message costs a key at least (other tests of this process derive keys meanwhile).
        #expect(Decryption.keyDerivations >= derivedBefore + 3)

        #expect(try client.hasSomethingToTry())
        #expect(try !PasswordClient(runOnly: []) { nil }.hasSomethingToTry())
        #expect(try PasswordClient(runOnly: []) { MemoryPasswordStore([StoredPassword(label: "s", secret: SecretBytes(utf8: "s"))]) }.hasSomethingToTry())
        let empty = Decryption(client: PasswordClient(runOnly: []) { nil })
        let attempt = try empty.attempt(try #require(try Self.messages(text).first))
        #expect(attempt.chainIsEmpty)
        #expect(attempt.failure?.code == .noPasswordOpened)
    }

    @Test("a v1 message is refused before the store is opened, unless legacy formats are allowed; its HMAC covers the ciphertext only")
    func legacyRefused() throws {
        // RNCryptor's v1 test vector format: version 1, options 1 (password), salts, IV, ciphertext, HMAC.
        let v1 = [UInt8]([1, 1]) + [UInt8](repeating: 7, count: 32) + [UInt8](repeating: 9, count: 16) + [UInt8](repeating: 3, count: 16 + 32)
        let row = try #require(try Self.messages(RNCryptor.Base64.encode(v1) + "\n").first)
        #expect(row.version == 1 && !row.authenticatesHeader)
        let client = PasswordClient(runOnly: []) { Issue.record("the store was opened for a refused message"); return nil }
        let attempt = try Decryption(client: client).attempt(row)
        #expect(attempt.failure?.formatError?.code == .legacyVersion)
        #expect(!attempt.chainIsEmpty)
        #expect(try #require(try Self.messages(Self.encrypt("x", "a") + "\n").first).authenticatesHeader)
    }

    @Test("when no password opens a message, the reporter is asked once a run; its password opens it and goes first after")
    func reporterAsksOnce() throws {
        let text = [Self.encrypt("one", "typed"), Self.encrypt("two", "typed"), Self.encrypt("three", "nobody")].joined(separator: "\n") + "\n"
        let client = PasswordClient(runOnly: [ChainPassword(name: "a", secret: SecretBytes(utf8: "a"))]) { nil }
        let reporter = Answering("typed")
        let decryption = Decryption(client: client, reporter: reporter)
        var results: [String] = []
        for (position, message) in try Self.messages(text).enumerated() {
            switch try decryption.attempt(message).open(threads: 1, position: position, naming: "in:\(position + 1)") {
            case .success(let decrypted):
                decryption.finished(openedBy: decrypted.openedBy)
                results.append(decrypted.openedBy.passwordName ?? "?")
            case .failure(let failure):
                results.append("\(failure.code == .noPasswordOpened)")
            }
        }
        #expect(results == ["prompt", "prompt", "true"])
        #expect(reporter.asked == ["in:1"], "asked once, naming the first message that did not open")

        let silent = Answering(nil)
        let none = Decryption(client: PasswordClient(runOnly: [ChainPassword(name: "a", secret: SecretBytes(utf8: "a"))]) { nil }, reporter: silent)
        let message = try #require(try Self.messages(text).first)
        #expect(throws: DecryptionFailure.self) { try none.attempt(message).open(naming: "x").get() }
        #expect(throws: DecryptionFailure.self) { try none.attempt(message).open(naming: "y").get() }
        #expect(silent.asked == ["x"])
    }

    @Test("the async forms: rows read and messages attempted and opened from a task group, no Swift concurrency thread held")
    func asyncForms() async throws {
        let text = (0..<6).map { Self.encrypt("message \($0)", $0 % 2 == 0 ? "a" : "b") }.joined(separator: "\n") + "\n"
        let client = PasswordClient(runOnly: [ChainPassword(name: "a", secret: SecretBytes(utf8: "a")),
                                              ChainPassword(name: "b", secret: SecretBytes(utf8: "b"))]) { nil }
        let decryption = Decryption(client: client, options: Decryption.Options(jobs: 3))
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let written = Array(text.utf8).withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        let descriptor = FileDescriptor(rawValue: fds[0])
        defer { try? descriptor.close() }
        try #require(written == text.utf8.count)
        var rows = try MessageRows(descriptor)
        var attempts: [Decryption.Attempt] = []
        while let row = try await rows.next() {
            guard case .message(let message) = row.content else { Issue.record("line \(row.line): \(row.content)"); continue }
            attempts.append(try await decryption.attempt(message))
        }
        try #require(attempts.count == 6)
        let opened = await withTaskGroup(of: (Int, String).self) { group in
            for (position, attempt) in attempts.enumerated() {
                group.addTask {
                    let result = await attempt.open(threads: 1, position: position, naming: "line \(position + 1)")
                    return (position, (try? result.get()).map { String(decoding: $0.plaintext, as: UTF8.self) } ?? "failed")
                }
            }
            var all = [String](repeating: "", count: 6)
            for await (position, plaintext) in group { all[position] = plaintext }
            return all
        }
        #expect(opened == (0..<6).map { "message \($0)" })
    }

    /// Waits until `count` callers have arrived (or 120 s: then the test fails, never hangs).
    final class Barrier: @unchecked Sendable {
        private let lock = NSLockLike()
        private var arrived = 0
        private let count: Int
        private let all = DispatchSemaphore(value: 0)
        init(_ count: Int) { self.count = count }
        func arrive() -> Bool {
            let last = lock.with { arrived += 1; return arrived == count }
            if last { for _ in 0..<count { all.signal() } }
            return all.wait(timeout: .now() + 120) == .success
        }
    }

    /// A pthread mutex (no Foundation here).
    final class NSLockLike: @unchecked Sendable {
        private var mutex = pthread_mutex_t()
        init() { pthread_mutex_init(&mutex, nil) }
        func with<T>(_ body: () -> T) -> T { pthread_mutex_lock(&mutex); defer { pthread_mutex_unlock(&mutex) }; return body() }
    }

    /// A reporter that answers nothing once every run's reporter has been asked.
    final class Waiting: DecryptionReporter, @unchecked Sendable {
        let barrier: Barrier
        var allArrived = false
        init(_ barrier: Barrier) { self.barrier = barrier }
        func password(afterNoneOpened what: String) -> ChainPassword? {
            allArrived = barrier.arrive()
            return nil
        }
    }

    @Test("await attempt.open holds no Swift concurrency thread: more runs than cores all wait at once")
    func asyncOpenHoldsNoThread() async throws {
        // Every run's message fails its chain and asks its reporter, which waits for all of
        // them: possible only when the runs do not wait on the cooperative pool (one per core).
        let runs = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) + 2
        // The library's worker pool as wide as the runs (a program's --jobs): the async forms
        // queue on it beyond its width, which is one per core unless asked (and never narrows,
        // so the test does not depend on what ran before it in this process).
        Scheduler.shared.widen(to: runs)
        let barrier = Barrier(runs)
        let message = try #require(try Self.messages(Self.encrypt("x", "nobody") + "\n").first)
        let reporters = (0..<runs).map { _ in Waiting(barrier) }
        await withTaskGroup(of: Void.self) { group in
            for reporter in reporters {
                let decryption = Decryption(client: PasswordClient(runOnly: [ChainPassword(name: "a", secret: SecretBytes(utf8: "a"))]) { nil },
                                            reporter: reporter)
                group.addTask {
                    guard let attempt = try? await decryption.attempt(message) else { return }
                    _ = await attempt.open(naming: "x")
                }
            }
        }
        let arrived = reporters.filter { $0.allArrived }.count
        #expect(arrived == runs, "\(arrived) of \(runs) runs were in flight at once")
    }
}
