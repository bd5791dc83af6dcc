import Foundation
import Testing

/// What a program that depends on RWSecretKit can and cannot reach (issue 23, items 6 and 7):
/// snippets typechecked by `swiftc` against the module just built, as a consumer sees it
/// (no `-package-name`, so `package` symbols are out of reach). Before, every "refused"
/// snippet typechecked: a program could mint a `Decrypted`, read a chain password's secret
/// by walking `chainHead()`, and call the tool's own helpers.
@Suite("The public API as a consumer sees it")
struct PublicAPITests {
    /// Each line a consumer must not be able to write, with why.
    static let refused: [(code: String, why: String)] = [
        ("func a(_ h: PasswordHandler) -> SecretBytes { h.password.secret }", "a chain password's secret, by walking the chain"),
        ("func b(_ o: Opener) -> SecretBytes? { if case .password(let p) = o { p.secret } else { nil } }", "the secret of the password that opened a message"),
        ("func c() -> Decrypted { Decrypted(plaintext: [1], openedBy: .key) }", "a Decrypted that no handler verified"),
        ("let c2 = CredentialName(kind: .password, label: \"made up\")", "a credential name nothing opened"),
        ("func c3(_ i: OpenPGP.Identity) -> Any { i.named }", "an OpenPGP identity's secret key, in the library's own form"),
        ("func d(_ p: ChainPassword) -> Any? { p.openedForm }", "ChainPassword.openedForm (the chain's hint)"),
        ("func e() -> DecryptionFailure { .lineTooLong }", "the tool's line-mode failure"),
        ("func f() -> String { FileKind.fifo.withArticle }", "the tool's wording of a file kind"),
        ("func g() -> String { CharacterClassValidator.Requirement.alpha.wording }", "the tool's wording of a requirement"),
        ("func h() -> PasswordValidator { .runDefault }", "the tool's run-password validators"),
        ("func i() -> PasswordValidator { .passwordAdd(minimumLength: nil, requirement: nil, stored: []) }", "the tool's password add validators"),
        // One validator type with static members, not a type per rule (issue 23: under 150 public symbols).
        ("let y = NonEmptyValidator()", "a type per validation rule"),
        ("let z = MinimumLengthValidator.domain", "a domain constant per rule"),
        // Generic top-level names: `Crypto` hid swift-crypto's module (`Crypto.SHA256` failed with both imported).
        ("let j: Crypto.Type? = nil", "a top-level Crypto"),
        ("let k: Message? = nil", "a top-level Message"),
        ("let l = Base64.encode([1])", "a top-level Base64"),
        ("let m: SystemError? = nil", "a top-level SystemError"),
        ("let n: FileKind? = nil", "a top-level FileKind"),
        ("let n2: StoreError.FileKind? = nil", "a file kind (the tool's words; the description names it)"),
        ("let n3: StoreKind? = nil", "a store kind (a user has the type)"),
        ("let n4: VerifiedStream.Failure? = nil", "a second error for streams"),
        ("let n5 = RNCryptorError.hmacMismatch", "an error case to switch over exhaustively (a code instead)"),
        ("func n6(_ f: DecryptionFailure) -> Bool { if case .badPadding = f { true } else { false } }", "a DecryptionFailure case to switch over exhaustively (a code instead)"),
        ("let o = KeyDerivation.iterations", "a top-level KeyDerivation"),
        // The tool's test and measurement hooks are SPI (`@_spi(Testing)`), not API (issue 33, item 4).
        ("let o2: () = KeyDerivation.delayForTesting(microseconds: 1)", "the scale model's hook"),
        ("let o3 = KeyDerivation.derivationsInFlightForTesting", "the scale model's profile"),
        ("let o4 = LiteralData(name: [], date: 0)", "literal data no message held"),
        // The rest of the tool inside the API (item 7).
        ("func p(_ c: PasswordClient) -> Any { c.lastBuild }", "PasswordClient.lastBuild (for --verbose)"),
        ("let q = ChainWalk()", "ChainWalk (the tool's parallel walk)"),
        ("let r = SearchGate()", "SearchGate (the tool's parallel search)"),
        ("func s(_ c: PasswordClient) throws -> Any? { try c.chainHead() }", "the chain's handlers"),
        ("let t = try KeyringPasswordStore(lockPath: \"/tmp/x\")", "a keyring lock path the caller invents"),
        ("func w(_ c: PasswordClient) throws -> Any { try VerifiedStream().decrypt(input: Int32(0), client: c, to: .descriptor(Int32(1))) }", "Int32 descriptors"),
        ("let x = VaultPasswordStore(path: String(\"/tmp/v\"), passphrase: { _ in nil })", "a String path"),
        // Two error channels (item 8): decrypt throws its one typed error and returns the result.
        ("func u(_ c: PasswordClient, _ m: [UInt8]) throws -> Result<Decrypted, DecryptionFailure> { try c.decrypt(m) }", "throws -> Result"),
        ("func v(_ e: Encryptor) -> [UInt8] { e.update(ContiguousStorageOnly()) }; struct ContiguousStorageOnly: ContiguousByteStorage { func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try [UInt8]().withUnsafeBytes(body) } }", "the library's own byte protocol"),
    ]

    /// What a consumer does write: it must typecheck, or the check above proves nothing.
    static let allowed = """
        import RWSecretKit
        import SystemPackage
        func opened(_ result: Decrypted) -> ([UInt8], String?) { (result.plaintext, result.openedBy.passwordName) }
        let client = PasswordClient(runOnly: [ChainPassword(name: "a", secret: SecretBytes(utf8: "b"))]) { nil }
        // One error channel, and bytes in as any collection of bytes (an array, a slice, Foundation's Data).
        func open(_ message: ArraySlice<UInt8>) throws(DecryptionFailure) -> Decrypted { try client.decrypt(message) }
        func openDirectly(_ message: ArraySlice<UInt8>) throws(RNCryptorError) -> [UInt8] {
            try RNCryptor.decrypt(message, password: SecretBytes(utf8: "b"))
        }
        func stream(_ decryptor: Decryptor, _ part: ArraySlice<UInt8>) throws(RNCryptorError) { try decryptor.update(part) }
        // Paths as FilePath, descriptors as FileDescriptor (swift-system).
        let vault = VaultPasswordStore(path: FilePath("/tmp/vault"), passphrase: { _ in nil })
        // A stream throws the client's one error too (its own failures: which I/O operation, inputChanged, notRNCryptor).
        func failedIO(_ failure: DecryptionFailure) -> Errno? { failure.code == .readFailed || failure.code == .writeFailed ? failure.errno : nil }
        // One pattern for every error: a struct with a non-frozen code (a switch needs a default).
        func act(_ failure: DecryptionFailure) -> String {
            switch failure.code {
            case .noPasswordOpened, .noCredentialOpened: "tried \\(failure.tried ?? 0)"
            case .store: "\\(failure.storeError!.code == .locked)"
            case .format: "\\(failure.formatError?.code == .unknownFormat)"
            default: "\\(failure)"
            }
        }
        // A custom store throws the stores' error.
        let customStoreError = StoreError(code: .unavailable, description: "the service is down")
        // A custom store is seen changing: it is observable, with the library's observer list.
        final class RemoteStore: ObservablePasswordStore {
            let observers = PasswordStoreObservers()
            var location: String { "remote" }
            func open() throws(StoreError) { throw StoreError(code: .unavailable, description: "down") }
            func labels() throws(StoreError) -> [String] { [] }
            func passwords() throws(StoreError) -> [StoredPassword] { [] }
            func add(_ passwords: [PasswordToAdd], check: (SecretBytes, [SecretBytes]) -> [ValidationFailure]) throws(StoreError) -> [String] {
                observers.notify(self, .added(label: "x"))
                return ["x"]
            }
            func remove(labels: [String]) throws(StoreError) {}
            func rename(_ label: String, to newLabel: String) throws(StoreError) {}
            func addObserver(_ observer: any PasswordStoreObserver) { observers.add(observer) }
            func removeObserver(_ observer: any PasswordStoreObserver) { observers.remove(observer) }
        }
        func streamed(_ input: FileDescriptor, _ output: FileDescriptor) throws(DecryptionFailure) -> VerifiedStream.Decrypted {
            try VerifiedStream().decrypt(input: input, client: client, to: .descriptor(output))
        }
        let toFile = VerifiedStream.Destination.file(FilePath("/tmp/out"))
        func keyring() throws(StoreError) -> KeyringPasswordStore { try KeyringPasswordStore() }
        // The tool's store set-up, from an environment of the program's own (issue 33, item 4).
        func keyring(_ environment: [String: String]) throws(StoreError) -> KeyringPasswordStore {
            KeyringPasswordStore.startWarmUp(askingTheBus: true)
            guard try KeyringPasswordStore.secretServiceIsRunning() else { throw .unavailable(reason: "no Secret Service", advice: "start one") }
            _ = KeyringPasswordStore.defaultLockPath(environment)
            return try KeyringPasswordStore(environment: environment)
        }
        let defaultVault = VaultPasswordStore.defaultPath(["HOME": "/home/me"])
        // A store error is a struct with a non-frozen code (new codes break no switch), its labels and failures.
        func locked(_ error: StoreError) -> Bool { error.code == .locked }
        // So is the format's error: a wrong password or a corrupted message is one code.
        func wrongPasswordOrCorrupted(_ error: RNCryptorError) -> Bool { error.code == .authenticationFailure }
        func legacy(_ error: RNCryptorError) -> UInt8? { error.code == .legacyVersion ? error.version : nil }
        func concerns(_ error: StoreError) -> ([String], [ValidationFailure]) { (error.labels, error.failures) }
        func act(_ error: StoreError) -> String {
            switch error.code {
            case .labelExists, .unknownLabel: "labels \\(error.labels)"
            default: "\\(error)"
            }
        }
        // A custom store or passphrase provider throws the errors the package's stores throw, and a
        // consumer words each from public facts (issue 33, item 7).
        func unknown(_ label: String) -> StoreError { .unknownLabels([label]) }
        let provider: @Sendable (VaultPasswordStore.PassphraseRequest) throws(StoreError) -> SecretBytes? = { _ throws(StoreError) in
            throw .noPassphrase(path: "/tmp/vault", reason: "no terminal")
        }
        func advice(_ error: StoreError) -> String? {
            switch error.code {
            case .noVault, .vaultDamaged, .vaultUnreadable: error.path
            case .noPassphrase, .invalidLabel: error.detail
            case .sessionKeyring: error.errno == .notPermitted ? "not permitted" : nil
            case .passphraseRejected, .rejected: error.failures.first?.description
            case .unsafePath: error.path
            default: error.description.hasSuffix(StoreError.vaultAlternative) ? "use the vault" : nil
            }
        }
        // Credentials are an open protocol (issue 33): an identity and a recipient of the program's own.
        struct TokenIdentity: Identity {
            let name = "token"
            let held: Age.Identity
            func unwrap(_ stanzas: [Age.Stanza]) throws -> SecretBytes? { try held.unwrap(stanzas) }
        }
        struct TokenRecipient: Recipient {
            let held: Age.Recipient
            func wrap(_ fileKey: SecretBytes) throws -> [Age.Stanza] { try held.wrap(fileKey) + [Age.Stanza(type: "token", arguments: ["1"], body: [])] }
        }
        func openWithToken(_ held: Age.Identity, _ message: [UInt8]) throws(DecryptionFailure) -> CredentialName {
            try MessageOpener(client: client, identities: [TokenIdentity(held: held), held]).open(message).openedBy.name
        }
        func writeToToken(_ held: Age.Recipient) throws(Age.KeyError) -> [UInt8] { try Age.encrypt([1], to: [TokenRecipient(held: held), held]) }
        func byIdentity(_ name: CredentialName) -> Bool { name.kind == .identity && name.label == "token" }
        let validators = PasswordValidator([.standard, .minimumLength(12), .onlyLettersAndDigits])
        let custom = PasswordValidator { $0.count == 3 ? ValidationFailure(domain: "example", code: 1, description: "three", reason: "not three") : nil }
        let base64 = RNCryptor.Base64.encode([1, 2, 3])
        let decoded: [UInt8]? = RNCryptor.Base64.decodeLenient(Array(base64.utf8))
        """

    /// Sharing one client (and the stores, an encryptor, a decryptor) between tasks and
    /// handing it to an actor, in Swift 6 mode (issue 23, item 2): before, each capture
    /// failed with `SendingClosureRisksDataRace`.
    static let concurrent = """
        import RWSecretKit
        func shared(_ client: PasswordClient, _ messages: [[UInt8]]) async -> [String?] {
            await withTaskGroup(of: String?.self) { group in
                for message in messages { group.addTask { try? client.decrypt(message).openedBy.passwordName } }
                var names: [String?] = []
                for await name in group { names.append(name) }
                return names
            }
        }
        actor Service {
            let client: PasswordClient
            init(client: PasswordClient) { self.client = client }
            func open(_ message: [UInt8]) throws -> [UInt8] { try client.decrypt(message).plaintext }
        }
        func handOver(_ client: PasswordClient) -> Service { Service(client: client) }
        func shareAll(_ a: MemoryPasswordStore, _ b: KeyringPasswordStore, _ c: VaultPasswordStore,
                      _ e: Encryptor, _ d: Decryptor, _ s: any PasswordStore) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = (a, b, c, e, d, s) }
                group.addTask { _ = (a, b, c, e, d, s) }
            }
        }
        """

    @Test("a client, the stores, an encryptor and a decryptor can be shared between tasks in Swift 6")
    func sharedAcrossTasks() throws {
        let errors = try Self.typecheck(Self.concurrent, swift6: true)
        #expect(errors.isEmpty, "\(errors)")
    }

    /// Both products imported in one file: `RNCryptor` names one type, the library's, which
    /// RNCryptorCompat extends with RNCryptor Swift's API (before, the name was ambiguous).
    static let bothProducts = """
        import RWSecretKit
        import RNCryptorCompat
        import Foundation
        let message = RNCryptor.encrypt([1, 2, 3], password: SecretBytes(utf8: "pw"))
        let viaCompat = try RNCryptor.decrypt(data: Data(message), withPassword: "pw")
        let viaKit = try RNCryptor.decrypt(message, password: SecretBytes(utf8: "pw"))
        let failure: RNCryptor.Error? = nil
        func check(_ error: any Error) -> Bool { error is RNCryptor.Error }
        """

    @Test("RNCryptor is not ambiguous with both products imported")
    func bothProductsImported() throws {
        let errors = try Self.typecheck(Self.bothProducts)
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test("a consumer's ordinary code typechecks")
    func allowedCodeTypechecks() throws {
        let errors = try Self.typecheck(Self.allowed)
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test("secrets, a forged Decrypted and the tool's helpers are out of a consumer's reach")
    func refusedCodeDoesNotTypecheck() throws {
        let source = "import RWSecretKit\n" + Self.refused.map(\.code).joined(separator: "\n")
        let errors = try Self.typecheck(source)
        for (index, line) in Self.refused.enumerated() {
            // Line 1 is the import.
            #expect(errors.contains { $0.line == index + 2 }, "a consumer can reach \(line.why): \(line.code)")
        }
    }

    /// What the articles' snippets take as given (their inputs), declared for the typecheck.
    static let articlePrelude = """
        import RWSecretKit
        import Foundation
        import Glibc
        import SystemPackage
        let bytes: [UInt8] = [], keyBasedMessage: [UInt8] = [], firstPart: [UInt8] = [], secondPart: [UInt8] = []
        let parts: [[UInt8]] = [], encryptionKey = [UInt8](repeating: 1, count: 32), hmacKey = [UInt8](repeating: 2, count: 32)
        let client = PasswordClient(runOnly: []) { nil }
        let lockFile = "", vaultPath = "", identityFileText = "", message: [UInt8] = []
        func passphraseFromYourConfiguration() -> SecretBytes? { nil }
        struct Configuration { let primary = "", previous = "" }
        let configuration = Configuration()
        """

    @Test("every Swift snippet of the DocC articles typechecks against the built module")
    func articleSnippetsTypecheck() throws {
        var root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) { root.deleteLastPathComponent() }
        // Both products' catalogs (RWSecretKit re-exports RWSecretCore: one import reaches both).
        var blocks: [(article: String, code: String)] = []
        let catalogs = ["RWSecretCore/RWSecretCore.docc", "RWSecretKit/RWSecretKit.docc"].map { root.appendingPathComponent("Sources/" + $0) }
        for catalog in catalogs { for name in try FileManager.default.contentsOfDirectory(atPath: catalog.path).sorted() where name.hasSuffix(".md") {
            let text = try String(contentsOf: catalog.appendingPathComponent(name), encoding: .utf8)
            var current: [Substring]?
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if current == nil, line == "```swift" { current = [] }
                else if let code = current, line == "```" {
                    // A manifest line (`.package(url:…)`) is Package.swift's, not the library's.
                    if !code.contains(where: { $0.hasPrefix(".package(") }) { blocks.append((name, code.joined(separator: "\n"))) }
                    current = nil
                } else if current != nil, !line.hasPrefix("import ") { current!.append(line) }  // the prelude imports
            }
        } }
        #expect(blocks.count >= 8, "only \(blocks.count) Swift snippets found in the catalogs")
        // Each snippet in a scope of its own: they may reuse names, as articles do.
        let source = Self.articlePrelude + "\n" + blocks.map { "do { // \($0.article)\n\($0.code)\n}" }.joined(separator: "\n")
        let errors = try Self.typecheck(source)
        #expect(errors.isEmpty, "\(errors)\n\(source)")
    }

    struct Diagnostic: CustomStringConvertible {
        let line: Int
        let text: String
        var description: String { "line \(line): \(text)" }
    }

    /// Typechecks the consumer's file `name`, which sits beside the test file `testFile` (its
    /// `#filePath`), in Swift 6 mode; the errors it gives.
    static func typecheckFile(_ name: String, besideTest testFile: String) throws -> [Diagnostic] {
        let path = URL(fileURLWithPath: testFile).deletingLastPathComponent().appendingPathComponent(name)
        return try typecheck(try String(contentsOf: path, encoding: .utf8), swift6: true)
    }

    /// Typechecks `source` as a consumer's file against the built RWSecretKit; the errors it gives.
    static func typecheck(_ source: String, swift6: Bool = false) throws -> [Diagnostic] {
        let binaries = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        var root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) { root.deleteLastPathComponent() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rwsecret-api-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("consumer.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        // The C modules RWSecretKit was built with, as SwiftPM hands them to a dependent: every
        // system library's module map in Sources/ (a list here missed each new one).
        let sources = root.appendingPathComponent("Sources")
        let moduleMaps = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
            .map { sources.appendingPathComponent($0).appendingPathComponent("module.modulemap").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
            + [binaries.appendingPathComponent("CSHA1Kernel.build/module.modulemap").path]
            + [root.appendingPathComponent(".build/checkouts/swift-system/Sources/CSystem/include/module.modulemap").path]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-swift-version", swift6 ? "6" : "5", "-I", binaries.appendingPathComponent("Modules").path]
            + moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] } + [file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let prefix = file.path + ":"
        let errors = text.split(separator: "\n").compactMap { row -> Diagnostic? in
            guard row.hasPrefix(prefix), row.contains(": error: ") else { return nil }
            guard let line = Int(row.dropFirst(prefix.count).prefix { $0 != ":" }) else { return nil }
            return Diagnostic(line: line, text: String(row))
        }
        // A failure with no error on a line of the file (swiftc missing, the module not found) is no answer.
        if process.terminationStatus != 0 && errors.isEmpty { throw TypecheckFailed(output: text) }
        return errors
    }

    struct TypecheckFailed: Error, CustomStringConvertible {
        let output: String
        var description: String { "swiftc -typecheck failed without a diagnostic on the file: \(output)" }
    }
}
