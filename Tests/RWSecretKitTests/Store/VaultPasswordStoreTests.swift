import Foundation
import RWSecretKit
import Testing

/// The vault adapter on real files.
struct VaultPasswordStoreTests {
    let folder = TemporaryFolder()

    /// A passphrase provider that counts how often it is asked.
    final class Passphrase: @unchecked Sendable {
        let value: String
        private(set) var requests: [VaultPasswordStore.PassphraseRequest] = []
        init(_ value: String) { self.value = value }
        func provide(_ request: VaultPasswordStore.PassphraseRequest) throws(StoreError) -> SecretBytes {
            requests.append(request)
            return SecretBytes(utf8: value)
        }
    }

    func store(at path: String, passphrase: Passphrase) -> VaultPasswordStore {
        VaultPasswordStore(path: path, passphrase: passphrase.provide)
    }

    @Test func absentVaultIsAnEmptyStoreThatNeedsNoPassphrase() throws {
        let passphrase = Passphrase("correct horse battery")
        let vault = store(at: folder.path + "/missing/vault", passphrase: passphrase)
        #expect(try vault.labels().isEmpty)
        #expect(try vault.passwords().isEmpty)
        #expect(passphrase.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/missing"))
    }

    @Test func changesToAnAbsentVaultDoNotCreateIt() throws {
        let passphrase = Passphrase("short")
        let vault = store(at: folder.path + "/vault", passphrase: passphrase)
        #expect(throws: StoreError.unknownLabels(["a"])) { try vault.remove(labels: ["a"]) }
        #expect(throws: StoreError.unknownLabels(["a"])) { try vault.rename("a", to: "b") }
        #expect(passphrase.requests.isEmpty, "no new vault's passphrase asked for a change that cannot be made")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/vault"))
    }

    @Test func roundTripKeepsOrderLabelsAndSecrets() throws {
        let path = folder.path + "/vault"
        let passphrase = Passphrase("correct horse battery")
        let vault = store(at: path, passphrase: passphrase)
        // Secrets with bytes an ad-hoc text format would trip over.
        let secrets = ["plain", "with\u{0}nul", "ünïcödé 🔑", String(repeating: "x", count: 1024), "=:\n\"\\"]
        for (index, secret) in secrets.enumerated() {
            try vault.add(SecretBytes(utf8: secret), label: index == 2 ? "named" : nil)
        }
        #expect(passphrase.requests == [.create])
        // A rename keeps the place; a secret stored under another label is refused.
        try vault.rename("named", to: "renamed")
        #expect(throws: StoreError.labelExists("password-1")) { try vault.rename("renamed", to: "password-1") }
        #expect(throws: StoreError.unknownLabels(["nope"])) { try vault.rename("nope", to: "other") }
        #expect {
            try vault.add(SecretBytes(utf8: "plain"), label: "again")
        } throws: { error in
            guard case .passwordRejected(nil, let failures) = (error as? StoreError)?.reason else { return false }
            return failures.map(\.domain) == [NotAlreadyStoredValidator.domain]
        }

        let reopened = store(at: path, passphrase: Passphrase("correct horse battery"))
        #expect(try reopened.labels() == ["password-1", "password-2", "renamed", "password-3", "password-4"])
        #expect(try reopened.passwords().map(\.secret.testString) == secrets)
        #expect(reopened.location == path)
    }

    @Test func removeIsAllOrNothingAndLabelsAreUnique() throws {
        let path = folder.path + "/vault"
        let vault = store(at: path, passphrase: Passphrase("correct horse battery"))
        try vault.add(SecretBytes(utf8: "a-secret"), label: "a")
        try vault.add(SecretBytes(utf8: "b-secret"), label: "b")
        #expect(throws: StoreError.labelExists("a")) { try vault.add(SecretBytes(utf8: "other"), label: "a") }
        #expect(throws: StoreError.unknownLabels(["c"])) { try vault.remove(labels: ["a", "c"]) }
        #expect(try vault.labels() == ["a", "b"])
        try vault.remove(labels: ["b"])
        #expect(try store(at: path, passphrase: Passphrase("correct horse battery")).labels() == ["a"])
    }

    @Test func observersHearChanges() throws {
        let vault = store(at: folder.path + "/vault", passphrase: Passphrase("correct horse battery"))
        let observer = RecordingObserver()
        vault.addObserver(observer)
        try vault.add(SecretBytes(utf8: "one"), label: "x")
        #expect(throws: StoreError.self) { try vault.add(SecretBytes(utf8: "two"), label: "x") }
        try vault.remove(labels: ["x"])
        #expect(observer.changes == [.added(label: "x"), .removed(labels: ["x"])])
    }

    @Test func fileIsMode0600AndNewFoldersAre0700() throws {
        // An existing folder keeps its mode; the missing ones below it are created 0700.
        let existing = folder.path + "/existing"
        try FileManager.default.createDirectory(atPath: existing, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let path = existing + "/a/b/vault"
        let vault = store(at: path, passphrase: Passphrase("correct horse battery"))
        try vault.add(SecretBytes(utf8: "s"), label: "l")
        #expect(TemporaryFolder.mode(path) == 0o600)
        #expect(TemporaryFolder.mode(existing + "/a") == 0o700)
        #expect(TemporaryFolder.mode(existing + "/a/b") == 0o700)
        #expect(TemporaryFolder.mode(existing) == 0o755)
        // A rewrite keeps 0600 and leaves no temporary file behind.
        try vault.add(SecretBytes(utf8: "t"), label: "m")
        #expect(TemporaryFolder.mode(path) == 0o600)
        let names = try FileManager.default.contentsOfDirectory(atPath: existing + "/a/b").sorted()
        #expect(names == ["vault", "vault.lock"])
    }

    @Test func vaultHoldsNoSecretOrLabelInPlainBytes() throws {
        let path = folder.path + "/vault"
        let vault = store(at: path, passphrase: Passphrase("correct horse battery"))
        try vault.add(SecretBytes(utf8: "UnmistakableSecret-7f3a"), label: "UnmistakableLabel")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.first == 3 && bytes.dropFirst().first == 1, "a v3 password-based RNCryptor message")
        for needle in ["UnmistakableSecret-7f3a", "UnmistakableLabel", "correct horse battery"] {
            let pattern = Array(needle.utf8)
            let found = bytes.indices.contains { start in
                start + pattern.count <= bytes.count && Array(bytes[start..<start + pattern.count]) == pattern
            }
            #expect(!found, "\(needle) appears in the vault file")
        }
    }

    @Test func wrongPassphraseFailsAndLeavesTheFileByteIdentical() throws {
        let path = folder.path + "/vault"
        try store(at: path, passphrase: Passphrase("correct horse battery")).add(SecretBytes(utf8: "s"), label: "l")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var info = stat()
        stat(path, &info)
        let inode = info.st_ino

        let wrong = store(at: path, passphrase: Passphrase("wrong passphrase!"))
        let attempts: [() throws -> Void] = [
            { try wrong.add(SecretBytes(utf8: "t"), label: "m") }, { try wrong.remove(labels: ["l"]) }, { _ = try wrong.labels() },
        ]
        for attempt in attempts {
            #expect(throws: StoreError.wrongPassphrase(path: path)) { try attempt() }
        }
        // Asked again after each wrong answer, three tries in all.
        #expect(wrongPassphraseRequests(path) == [.open(attempt: 1), .open(attempt: 2), .open(attempt: 3)])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        stat(path, &info)
        #expect(info.st_ino == inode, "the vault was not replaced")
    }

    func wrongPassphraseRequests(_ path: String) -> [VaultPasswordStore.PassphraseRequest] {
        let wrong = Passphrase("still wrong!")
        _ = try? store(at: path, passphrase: wrong).labels()
        return wrong.requests
    }

    @Test func aWrongPassphraseMayBeCorrectedOnTheSecondOrThirdTry() throws {
        let path = folder.path + "/vault"
        try store(at: path, passphrase: Passphrase("correct horse battery")).add(SecretBytes(utf8: "s"), label: "l")
        let answers = LockedState(["wrong one", "wrong two", "correct horse battery"])
        let asked = LockedState<[VaultPasswordStore.PassphraseRequest]>([])
        let vault = VaultPasswordStore(path: path) { request throws(StoreError) in
            asked.withLock { $0.append(request) }
            return SecretBytes(utf8: answers.withLock { $0.removeFirst() })
        }
        #expect(try vault.labels() == ["l"])
        #expect(asked.withLock { $0 } == [.open(attempt: 1), .open(attempt: 2), .open(attempt: 3)])
        // nil: no other answer to give.
        let once = VaultPasswordStore(path: path) { request throws(StoreError) in
            request == .open(attempt: 1) ? SecretBytes(utf8: "wrong one") : nil
        }
        #expect(throws: StoreError.wrongPassphrase(path: path)) { try once.labels() }
    }

    /// Whether another open file description can take the lock at `path` now (false: it is held).
    private static func lockIsFree(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(fd, LOCK_UN)
        return true
    }

    // Before: a change to an existing vault took the lock, then read the vault and asked
    // the passphrase there, so a person typing held every other writer up.
    @Test func thePassphraseIsNeverAskedWhileTheLockIsHeld() throws {
        let path = folder.path + "/vault"
        try store(at: path, passphrase: Passphrase("correct horse battery")).add(SecretBytes(utf8: "s"), label: "l")
        let asked = LockedState<[Bool]>([])
        let vault = VaultPasswordStore(path: path) { _ throws(StoreError) in
            asked.withLock { $0.append(Self.lockIsFree(path + ".lock")) }
            return SecretBytes(utf8: "correct horse battery")
        }
        try vault.add(SecretBytes(utf8: "t"), label: "m")
        try vault.remove(labels: ["m"])
        let lockFreeWhenAsked = asked.withLock { $0 }
        #expect(lockFreeWhenAsked == [true], "asked \(lockFreeWhenAsked.count) times; lock free each time: \(lockFreeWhenAsked)")
        // A new vault's passphrase too.
        let newLockFree = LockedState<[Bool]>([])
        let newVault = folder.path + "/new-vault"
        let fresh = VaultPasswordStore(path: newVault) { _ throws(StoreError) in
            newLockFree.withLock { $0.append(Self.lockIsFree(newVault + ".lock")) }
            return SecretBytes(utf8: "correct horse battery")
        }
        try fresh.add(SecretBytes(utf8: "t"), label: "m")
        #expect(newLockFree.withLock { $0 } == [true])
    }

    @Test func changingThePassphraseIsAllOrNothing() throws {
        let path = folder.path + "/vault"
        let vault = store(at: path, passphrase: Passphrase("correct horse battery"))
        try vault.add(SecretBytes(utf8: "s"), label: "l")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreError.self) { try vault.changePassphrase(to: SecretBytes(utf8: "short")) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        try vault.changePassphrase(to: SecretBytes(utf8: "a new passphrase"))
        #expect(try store(at: path, passphrase: Passphrase("a new passphrase")).labels() == ["l"])
        #expect(throws: StoreError.wrongPassphrase(path: path)) { try store(at: path, passphrase: Passphrase("correct horse battery")).labels() }
        #expect(throws: StoreError.noVault(path: folder.path + "/none")) {
            try store(at: folder.path + "/none", passphrase: Passphrase("correct horse battery")).changePassphrase(to: SecretBytes(utf8: "a new passphrase"))
        }
    }

    @Test func newVaultPassphraseMustPassTheValidators() throws {
        let path = folder.path + "/vault"
        let vault = store(at: path, passphrase: Passphrase("short"))
        #expect {
            try vault.add(SecretBytes(utf8: "s"), label: "l")
        } throws: { error in
            guard case .passphraseRejected(let failures) = (error as? StoreError)?.reason else { return false }
            return failures.map(\.domain) == [MinimumLengthValidator.domain]
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func damagedVaultIsReportedNotCrashed() throws {
        let path = folder.path + "/vault"
        try store(at: path, passphrase: Passphrase("correct horse battery")).add(SecretBytes(utf8: "s"), label: "l")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(40).write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.self) { try store(at: path, passphrase: Passphrase("correct horse battery")).labels() }
    }

    @Test func changesMadeElsewhereAreReadAgain() throws {
        // A store keeps what it last read while the file stays the same file; any change
        // by another store (another process), renamed into place or written in place, is seen.
        let path = folder.path + "/vault"
        let mine = store(at: path, passphrase: Passphrase("correct horse battery"))
        try mine.add(SecretBytes(utf8: "a-secret"), label: "a")
        #expect(try mine.labels() == ["a"])
        let other = store(at: path, passphrase: Passphrase("correct horse battery"))
        try other.add(SecretBytes(utf8: "b-secret"), label: "b")
        try other.remove(labels: ["a"])
        #expect(try mine.labels() == ["b"])
        #expect(try mine.passwords().map(\.secret.testString) == ["b-secret"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(40).write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.self) { try mine.labels() }
    }

    @Test func concurrentWritersInThisProcessLoseNothing() throws {
        // 16 threads (not the 2-thread cooperative pool), each with its own store and lock descriptor.
        let path = folder.path + "/vault"
        let group = DispatchGroup()
        let failures = NSLock()
        nonisolated(unsafe) var errors: [StoreError] = []
        for index in 0..<16 {
            group.enter()
            Thread {
                defer { group.leave() }
                let vault = VaultPasswordStore(path: path) { _ throws(StoreError) in SecretBytes(utf8: "correct horse battery") }
                do throws(StoreError) {
                    try vault.add(SecretBytes(utf8: "secret-\(index)"), label: "label-\(index)")
                } catch {
                    failures.lock(); errors.append(error); failures.unlock()
                }
            }.start()
        }
        group.wait()
        #expect(errors.isEmpty)
        let labels = try store(at: path, passphrase: Passphrase("correct horse battery")).labels()
        #expect(Set(labels) == Set((0..<16).map { "label-\($0)" }))
        #expect(labels.count == 16)
    }
}
