import Testing
import RWSecretKit

/// The Chain of Responsibility and its client, over the in-memory store.
@Suite("Password chain")
struct PasswordChainTests {
    func message(_ text: String, _ password: String) throws -> Message {
        try Message(RNCryptor.encrypt(Array(text.utf8), password: SecretBytes(utf8: password)))
    }

    func stored(_ label: String, _ password: String) -> StoredPassword {
        StoredPassword(label: label, secret: SecretBytes(utf8: password))
    }

    func chainNames(_ client: PasswordClient) throws -> [String] {
        try client.chainHead()?.chainPasswords().map(\.name) ?? []
    }

    @Test("each stored password opens its own message; the end of the chain counts the passwords tried")
    func opensInChainOrder() throws {
        let store = MemoryPasswordStore([stored("a", "alpha"), stored("b", "bravo"), stored("c", "charlie"), stored("d", "delta")])
        let client = PasswordClient(runOnly: []) { store }
        for (label, password) in [("c", "charlie"), ("a", "alpha"), ("d", "delta"), ("b", "bravo")] {
            let result = try client.decrypt(try message("for \(label)", password))
            #expect(try result.get().openedBy.passwordName == label)
            #expect(try result.get().plaintext == Array("for \(label)".utf8))
        }
        let failure = try client.decrypt(try message("lost", "nobody"))
        #expect(failure.failure == .noPasswordOpened(tried: 4))
    }

    @Test("the first password in chain order whose HMAC matches wins, even when a later one would too")
    func firstMatchWins() throws {
        // Two handlers with the same secret under different names: the earlier one must win,
        // whatever the batching of key derivations does.
        let store = MemoryPasswordStore([stored("x", "one"), stored("first", "same"), stored("second", "same")])
        let client = PasswordClient(runOnly: []) { store }
        // Make the head fail so that the batched path (successors derived together) decides.
        let result = try client.decrypt(try message("m", "same"))
        #expect(try result.get().openedBy.passwordName == "first")
    }

    @Test("the password that opened the last message goes first")
    func moveToFront() throws {
        let store = MemoryPasswordStore([stored("a", "alpha"), stored("b", "bravo"), stored("c", "charlie")])
        let client = PasswordClient(runOnly: [ChainPassword(name: "RWSECRET_PASSWORD", secret: SecretBytes(utf8: "env"))]) { store }
        #expect(try chainNames(client) == ["a", "b", "c", "RWSECRET_PASSWORD"])
        _ = try client.decrypt(try message("x", "charlie"))
        #expect(try chainNames(client) == ["c", "a", "b", "RWSECRET_PASSWORD"])
        _ = try client.decrypt(try message("x", "env"))
        #expect(try chainNames(client) == ["RWSECRET_PASSWORD", "a", "b", "c"])
        _ = try client.decrypt(try message("x", "nobody"))
        #expect(try chainNames(client) == ["RWSECRET_PASSWORD", "a", "b", "c"], "a failure changes nothing")
    }

    @Test("passwords added to the store mid-run are picked up (the client observes the store)")
    func observesStore() throws {
        let store = MemoryPasswordStore([stored("a", "alpha")])
        let client = PasswordClient(runOnly: []) { store }
        let late = try message("late", "added later")
        #expect(try client.decrypt(late).failure == .noPasswordOpened(tried: 1))
        try store.add(SecretBytes(utf8: "added later"), label: "late")
        #expect(try client.decrypt(late).get().openedBy.passwordName == "late")
        try store.remove(labels: ["a"])
        #expect(try chainNames(client) == ["late"])
    }

    @Test("the store is read once; a new first password only reorders the chain; a change is read again")
    func storeReadOnce() throws {
        /// The memory store, counting how often its secrets are read.
        final class CountingStore: ObservablePasswordStore, @unchecked Sendable {  // used from this test's thread only
            let inner: MemoryPasswordStore
            var reads = 0
            init(_ inner: MemoryPasswordStore) { self.inner = inner }
            var location: String { inner.location }
            func labels() -> [String] { inner.labels() }
            func passwords() -> [StoredPassword] { reads += 1; return inner.passwords() }
            func open() {}
            func add(_ passwords: [PasswordToAdd], check: (_ secret: SecretBytes, _ stored: [SecretBytes]) -> [ValidationFailure]) throws(StoreError) -> [String] {
                try inner.add(passwords, check: check)
            }
            func remove(labels: [String]) throws(StoreError) { try inner.remove(labels: labels) }
            func rename(_ label: String, to newLabel: String) throws(StoreError) { try inner.rename(label, to: newLabel) }
            func addObserver(_ observer: any PasswordStoreObserver) { inner.addObserver(observer) }
            func removeObserver(_ observer: any PasswordStoreObserver) { inner.removeObserver(observer) }
        }
        let store = CountingStore(MemoryPasswordStore([stored("a", "alpha"), stored("b", "bravo"), stored("c", "charlie")]))
        let client = PasswordClient(runOnly: []) { store }
        for (label, password) in [("c", "charlie"), ("a", "alpha"), ("b", "bravo"), ("c", "charlie")] {
            #expect(try client.decrypt(try message("for \(label)", password)).get().openedBy.passwordName == label)
        }
        #expect(try chainNames(client) == ["c", "a", "b"])
        #expect(store.reads == 1)
        _ = try store.add(SecretBytes(utf8: "delta"), label: "d")
        #expect(try client.decrypt(try message("for d", "delta")).get().openedBy.passwordName == "d")
        #expect(try chainNames(client) == ["d", "a", "b", "c"])
        #expect(store.reads == 2)
    }

    @Test("a run-only password equal to a stored one is dropped, not tried twice")
    func duplicatesDropped() throws {
        let store = MemoryPasswordStore([stored("a", "alpha")])
        let client = PasswordClient(runOnly: [
            ChainPassword(name: "file:1", secret: SecretBytes(utf8: "alpha")),
            ChainPassword(name: "file:2", secret: SecretBytes(utf8: "beta")),
        ]) { store }
        #expect(try chainNames(client) == ["a", "file:2"])
        #expect(try client.decrypt(try message("x", "nobody")).failure == .noPasswordOpened(tried: 2))
        #expect(client.lastBuild.droppedDuplicates == 1)
    }

    @Test("the store is opened only when the first message needs it, and its failure is passed on")
    func lazyStore() throws {
        struct Unavailable: Error {}
        nonisolated(unsafe) var opened = 0
        let client = PasswordClient(runOnly: []) { opened += 1; throw Unavailable() }
        #expect(opened == 0)
        #expect(throws: Unavailable.self) { try client.chainHead() }
        #expect(opened == 1)
    }

    @Test("no password at all: tried 0")
    func empty() throws {
        let client = PasswordClient(runOnly: []) { nil }
        #expect(try client.decrypt(try message("x", "y")).failure == .noPasswordOpened(tried: 0))
    }

    @Test("with successors derived on two threads, the first match in chain order still wins", arguments: [2, 4, 7, 8, 13])
    func parallelDerivation(count: Int) throws {
        // Passwords p1…pN, and pN's secret repeated at the end: pN must win over the later duplicate.
        var entries = (1...count).map { stored("p\($0)", "secret \($0)") }
        entries.append(stored("duplicate", "secret \(count)"))
        let store = MemoryPasswordStore(entries)
        let client = PasswordClient(runOnly: []) { store }
        let head = try #require(try client.chainHead())
        let opened = head.handle(try message("m", "secret \(count)"), parallelism: 2)
        #expect(try opened.get().openedBy.passwordName == "p\(count)")
        #expect(head.handle(try message("m", "none"), parallelism: 2).failure == .noPasswordOpened(tried: count + 1))
    }

    @Test("a chain of many passwords finds the last one (batches and remainders)", arguments: [1, 2, 3, 4, 5, 7])
    func longChains(count: Int) throws {
        let store = MemoryPasswordStore((1...count).map { stored("p\($0)", "secret \($0)") })
        let client = PasswordClient(runOnly: []) { store }
        #expect(try client.decrypt(try message("last", "secret \(count)")).get().openedBy.passwordName == "p\(count)")
        #expect(try client.decrypt(try message("none", "other")).failure == .noPasswordOpened(tried: count))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
