import Foundation
@testable import RWSecretKit
import Testing

/// Messages made fresh, at every run, by the Debian peers themselves (`make test` installs
/// `age` and `ansible-core`): random ASCII and Unicode passwords, empty and 1 MiB plaintexts,
/// armored and binary forms, vault ids. Passwords reach the peers through a 0600 file
/// (`ansible-vault --vault-password-file`) or a pseudo-terminal (`scripts/age-pty.py`), never argv.
enum Peers {
    static let root = Fixtures.directory.deletingLastPathComponent()

    /// The full path of `tool` on PATH (or /usr/bin), nil when it is not installed.
    static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":").map(String.init) + ["/usr/bin"] {
            let candidate = folder + "/" + tool
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `arguments` with `input` on stdin; stdout and stderr go to files (no pipe can fill).
    @discardableResult
    static func run(_ arguments: [String], input: [UInt8] = [], in folder: TemporaryFolder) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.currentDirectoryURL = folder.url
        var environment = ProcessInfo.processInfo.environment
        environment["ANSIBLE_LOCAL_TEMP"] = folder.path
        environment["ANSIBLE_HOME"] = folder.path
        process.environment = environment
        let inputPath = folder.file("stdin-\(UUID().uuidString)", bytes: input)
        let outPath = folder.file("stdout-\(UUID().uuidString)", bytes: [])
        let errPath = folder.file("stderr-\(UUID().uuidString)", bytes: [])
        process.standardInput = FileHandle(forReadingAtPath: inputPath)
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        process.waitUntilExit()
        let out = Array(FileManager.default.contents(atPath: outPath) ?? Data())
        let err = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
        for path in [inputPath, outPath, errPath] { try? FileManager.default.removeItem(atPath: path) }
        return (process.terminationStatus, out, err)
    }

    /// A random password: printable ASCII, or a mix of scripts and an emoji; never with
    /// whitespace at either end (Ansible strips a password file).
    static func randomPassword(unicode: Bool) -> String {
        let ascii = (0x21...0x7e).map { Character(Unicode.Scalar(UInt8($0))) } + [" "]
        let wide: [Character] = ["é", "ü", "ß", "ñ", "ø", "Ж", "я", "λ", "日", "本", "語", "한", "😀", "🔑", "\u{1F1EB}\u{1F1F7}", "e\u{301}"]
        let length = Int.random(in: 8...24)
        var characters = (0..<length).map { _ in unicode && Bool.random() ? wide.randomElement()! : ascii.randomElement()! }
        if unicode { characters[Int.random(in: 0..<length)] = wide.randomElement()! }
        characters[0] = ascii.filter { $0 != " " }.randomElement()!
        characters[length - 1] = unicode ? wide.randomElement()! : ascii.filter { $0 != " " }.randomElement()!
        return String(characters)
    }

    static func plaintext(_ size: Int) -> [UInt8] { size == 0 ? [] : Crypto.randomBytes(count: size) }

    /// Opens `message` with `kind` and `credentials`: the plaintext and the index of the credential
    /// that opened it, or the error.
    static func open<K: MessageKind>(_ kind: K.Type, _ message: [UInt8], _ credentials: [RWSecretKit.Credential]) -> Result<(plaintext: [UInt8], index: Int, tried: Int), KindError> {
        let sink = MemoryPlaintext()
        do {
            let (index, tried) = try K.decrypt(KindInput(bytes: message), credentials: credentials, into: sink)
            return .success((sink.bytes, index, tried))
        } catch {
            return .failure(error)
        }
    }

    /// Copies of `message` with one byte changed at each of `count` random places (and the
    /// last byte), each differing from the original.
    static func tampered(_ message: [UInt8], count: Int) -> [(position: Int, bytes: [UInt8])] {
        var positions = (0..<count).map { _ in Int.random(in: 0..<message.count) }
        positions.append(message.count - 1)
        return positions.map { position in
            var copy = message
            copy[position] ^= UInt8.random(in: 1...255)
            return (position, copy)
        }
    }
}

@Suite("age and Ansible Vault messages made by the peers themselves", .serialized)
struct KindPeerTests {
    let folder = TemporaryFolder()

    /// An Ansible Vault file's payload as Ansible decodes it: the hex after the `$ANSIBLE_VAULT`
    /// line (line ends and case ignored), its inner hex digits in lower case (salt, HMAC and
    /// ciphertext are hex again inside). Nil when it is not hex.
    static func payload(_ file: [UInt8]) -> [UInt8]? {
        guard let header = file.firstIndex(of: 0x0a) else { return nil }
        let hex = file[(header + 1)...].filter { $0 != 0x0a && $0 != 0x0d }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        guard hex.count % 2 == 0 else { return nil }
        var inner: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            guard let high = nibble(hex[index]), let low = nibble(hex[index + 1]) else { return nil }
            let byte = high << 4 | low
            inner.append((0x41...0x46).contains(byte) ? byte + 0x20 : byte)
            index += 2
        }
        return inner
    }

    /// The position in `file` of the outer hex digit `6` that writes the high half of an inner
    /// hex letter (`a` to `f`, 0x61–0x66), the first one.
    static func innerHexLetter(_ file: [UInt8]) -> Int? {
        guard let header = file.firstIndex(of: 0x0a) else { return nil }
        var digits: [Int] = []
        for position in (header + 1)..<file.count where file[position] != 0x0a && file[position] != 0x0d { digits.append(position) }
        var pair = 0
        while pair + 1 < digits.count {
            if file[digits[pair]] == UInt8(ascii: "6"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(file[digits[pair + 1]]) { return digits[pair] }
            pair += 2
        }
        return nil
    }

    func requireTool(_ name: String, package: String) throws -> String {
        try #require(Peers.find(name), "\(name) is not installed: `make deps` (or apt-get install \(package)) installs it")
    }

    /// age -p: one scrypt of work factor 18 each (about a second), so a few cases only; every
    /// form and size appears once.
    @Test("age -p messages open with their password as the second of the chain (tried 2)",
          arguments: [(unicode: false, size: 0, armor: false), (unicode: true, size: 1 << 20, armor: false),
                      (unicode: true, size: 37, armor: true), (unicode: false, size: 1 << 20, armor: true)])
    func agePassphrase(_ form: (unicode: Bool, size: Int, armor: Bool)) throws {
        let age = try requireTool("age", package: "age")
        let password = Peers.randomPassword(unicode: form.unicode)
        let plaintext = Peers.plaintext(form.size)
        let input = folder.file("plain", bytes: plaintext)
        let output = folder.path + "/message.age"
        let made = try Peers.run(["/usr/bin/env", "python3", Peers.root.path + "/scripts/age-pty.py", age, "-p"] + (form.armor ? ["-a"] : [])
                                 + ["-o", output, input], input: Array((password + "\n").utf8), in: folder)
        try #require(made.status == 0, "age -p failed: \(made.stderr)")
        let message = Array(FileManager.default.contents(atPath: output) ?? Data())
        #expect(AgeKind.detect(ArraySlice(message.prefix(detectionLength))))
        let wrong = RWSecretKit.Credential.password(SecretBytes(utf8: password + "x"))
        let right = RWSecretKit.Credential.password(SecretBytes(utf8: password))
        switch Peers.open(AgeKind.self, message, [wrong, right]) {
        case .success(let opened):
            #expect(opened.plaintext == plaintext, "password \(password)")
            #expect(opened.index == 1 && opened.tried == 2)
        case .failure(let error):
            Issue.record("password \(password): \(error)")
        }
        // Tampered copies: the header (one scrypt each) and the last byte of the payload.
        for (position, copy) in [(20, message), (message.count - 1, message)].map({ p, m in (p, { var c = m; c[p] ^= 0x01; return c }()) }) {
            if case .success = Peers.open(AgeKind.self, copy, [right]) { Issue.record("byte \(position) changed, still opened") }
        }
    }

    @Test("age X25519 messages open with the identity file age-keygen wrote; one recipient among several; tampering releases nothing",
          arguments: [(size: 0, armor: false), (size: 0, armor: true), (size: 1 << 20, armor: false), (size: 1 << 20, armor: true), (size: 65536, armor: false)])
    func ageX25519(_ form: (size: Int, armor: Bool)) throws {
        let age = try requireTool("age", package: "age")
        let keygen = try requireTool("age-keygen", package: "age")
        let plaintext = Peers.plaintext(form.size)
        var recipients: [String] = []
        for name in ["ours", "other"] {
            let made = try Peers.run([keygen, "-o", folder.path + "/\(name).key"], in: folder)
            try #require(made.status == 0, "\(made.stderr)")
            let text = String(decoding: FileManager.default.contents(atPath: folder.path + "/\(name).key") ?? Data(), as: UTF8.self)
            recipients.append(try #require(text.split(separator: "\n").first { $0.hasPrefix("# public key: ") }).dropFirst(14).description)
        }
        let input = folder.file("plain", bytes: plaintext)
        let output = folder.path + "/message.age"
        let made = try Peers.run([age] + (form.armor ? ["-a"] : []) + ["-r", recipients[1], "-r", recipients[0], "-o", output, input], in: folder)
        try #require(made.status == 0, "\(made.stderr)")
        let message = Array(FileManager.default.contents(atPath: output) ?? Data())
        let ours = try AgeX25519Identity.parseFile(String(decoding: FileManager.default.contents(atPath: folder.path + "/ours.key") ?? Data(), as: UTF8.self))
        let password = RWSecretKit.Credential.password(SecretBytes(utf8: "no scrypt stanza here"))
        switch Peers.open(AgeKind.self, message, [password] + ours.map { .ageX25519($0) }) {
        case .success(let opened):
            #expect(opened.plaintext == plaintext)
            #expect(opened.index == 1 && opened.tried == 1, "a password is not tried against X25519 stanzas")
        case .failure(let error):
            Issue.record("\(error)")
        }
        // Nobody's identity: no match, naming the stanza types.
        let stranger = try #require(AgeX25519Identity(secretKey: SecretBytes(Crypto.randomBytes(count: 32))))
        #expect(Peers.open(AgeKind.self, message, [.ageX25519(stranger)]).failure == .noMatch(["X25519", "X25519"]))
        for (position, copy) in Peers.tampered(message, count: form.size > 4096 ? 6 : 24) {
            if case .success(let opened) = Peers.open(AgeKind.self, copy, ours.map { .ageX25519($0) }) {
                // The armor's last LF as CR is the same file written differently (age reads CR,
                // LF and CRLF line ends alike there): only that may open, to the same plaintext.
                let lineEnd = form.armor && position == message.count - 1 && copy[position] == 0x0d
                if !(lineEnd && opened.plaintext == plaintext) {
                    Issue.record("byte \(position) of \(message.count) changed from \(message[position]) to \(copy[position]), still opened")
                }
            }
        }
    }

    @Test("ansible-vault files (1.1, and 1.2 with a vault id) open with their password as the second of the chain; tampering releases nothing",
          arguments: [(unicode: false, size: 0, vaultID: nil), (unicode: true, size: 1 << 20, vaultID: "prod"),
                      (unicode: true, size: 1, vaultID: nil), (unicode: false, size: 300, vaultID: "dev-2")] as [(unicode: Bool, size: Int, vaultID: String?)])
    func ansibleFile(_ form: (unicode: Bool, size: Int, vaultID: String?)) throws {
        let tool = try requireTool("ansible-vault", package: "ansible-core")
        let password = Peers.randomPassword(unicode: form.unicode)
        let passwordFile = folder.file("vault-pass", password)
        chmod(passwordFile, 0o600)
        let plaintext = Peers.plaintext(form.size)
        let input = folder.file("plain", bytes: plaintext)
        let output = folder.path + "/vaulted.yml"
        try? FileManager.default.removeItem(atPath: output)
        let credential = form.vaultID.map { ["--vault-id", "\($0)@\(passwordFile)"] } ?? ["--vault-password-file", passwordFile]
        let made = try Peers.run([tool, "encrypt"] + credential + ["--output", output, input], in: folder)
        try #require(made.status == 0, "ansible-vault failed: \(made.stderr)")
        let message = Array(FileManager.default.contents(atPath: output) ?? Data())
        #expect(AnsibleVaultKind.detect(ArraySlice(message.prefix(detectionLength))))
        let header = try AnsibleVaultKind.parse(message)
        #expect(header.version == (form.vaultID == nil ? "1.1" : "1.2"))
        #expect(header.vaultID == form.vaultID)
        let wrong = RWSecretKit.Credential.password(SecretBytes(utf8: String(password.dropLast())))
        let right = RWSecretKit.Credential.password(SecretBytes(utf8: password))
        switch Peers.open(AnsibleVaultKind.self, message, [wrong, right]) {
        case .success(let opened):
            #expect(opened.plaintext == plaintext, "password \(password)")
            #expect(opened.index == 1 && opened.tried == 2)
        case .failure(let error):
            Issue.record("password \(password): \(error)")
        }
        #expect(Peers.open(AnsibleVaultKind.self, message, [wrong]).failure == .noMatch([]))
        // The same message written differently: an inner hex letter in upper case, which the
        // outer hex writes as 4x for 6x (random tampering hit it once: "byte 135 changed from 54
        // to 52, still opened", which the check below then called a tampered message that opened).
        var tampered = Peers.tampered(message, count: form.size > 4096 ? 4 : 16)
        if let inner = Self.innerHexLetter(message) {
            var copy = message
            copy[inner] = UInt8(ascii: "4")
            tampered.append((inner, copy))
            #expect(Self.payload(copy) == Self.payload(message))
        }
        let original = Self.payload(message)
        for (position, copy) in tampered {
            if case .success(let opened) = Peers.open(AnsibleVaultKind.self, copy, [right]) {
                // Only the same message written differently may still open, to the same plaintext:
                // a hex digit in the other case (outer or inner hex), or a line's LF as CR (both line
                // ends to Ansible): the same payload as Ansible decodes it.
                // Ansible's HMAC covers the ciphertext, not the $ANSIBLE_VAULT line: a changed
                // version (1.1 for 1.2) or vault id still gives the same, authenticated plaintext.
                let headerLine = position < message.firstIndex(of: 0x0a)!
                let samePayload = original != nil && Self.payload(copy) == original
                if !((samePayload || headerLine) && opened.plaintext == plaintext) {
                    Issue.record("byte \(position) changed from \(message[position]) to \(copy[position]), still opened")
                }
            }
        }
    }

    /// macOS input methods give NFD, Linux NFC: the chain's password opens a vault made with
    /// the other form, as the same password.
    @Test("an Ansible Vault made with an NFD password opens with the NFC form (and the reverse), counted as one password")
    func ansibleNormalization() throws {
        let tool = try requireTool("ansible-vault", package: "ansible-core")
        let nfd = "cafe\u{301}-pa\u{308}sswo\u{308}rd", nfc = "café-pässwörd"
        #expect(Array(nfd.utf8) != Array(nfc.utf8))
        for (made, given) in [(nfd, nfc), (nfc, nfd)] {
            let passwordFile = folder.file("norm-pass", bytes: Array(made.utf8))
            chmod(passwordFile, 0o600)
            let output = folder.path + "/norm.vault"
            try? FileManager.default.removeItem(atPath: output)
            let result = try Peers.run([tool, "encrypt", "--vault-password-file", passwordFile, "--output", output, folder.file("plain", "normalized\n")], in: folder)
            try #require(result.status == 0, "\(result.stderr)")
            let message = Array(FileManager.default.contents(atPath: output) ?? Data())
            let chain = [ChainPassword(name: "wrong", secret: SecretBytes(utf8: "wrong")), ChainPassword(name: "given", secret: SecretBytes(Array(given.utf8)))]
            let sink = MemoryPlaintext()
            let opened = try MessageKinds.open(AnsibleVaultKind.self, input: KindInput(bytes: message), passwords: chain, identities: [], into: sink)
            #expect(sink.bytes == Array("normalized\n".utf8))
            #expect(opened.tried == 2)
            guard case .password(let winner) = opened.openedBy else { Issue.record("no password"); continue }
            #expect(winner.name == "given")
        }
    }

    @Test("encrypt_string values in a YAML file: each value one message, found with its key and line, each with its own vault id and password")
    func ansibleYAML() throws {
        let tool = try requireTool("ansible-vault", package: "ansible-core")
        var yaml = "# made by ansible-vault encrypt_string\nplain_setting: 1\n"
        var expected: [(key: String, line: Int, password: String, plaintext: String)] = []
        for (index, (key, vaultID)) in [("db_password", "prod"), ("api_token", nil), ("nested_secret", "dev")].enumerated() {
            let password = Peers.randomPassword(unicode: index != 1)
            let passwordFile = folder.file("pass-\(index)", password)
            chmod(passwordFile, 0o600)
            let value = index == 2 ? "multi\nline ✓ value" : Peers.randomPassword(unicode: true)
            let credential = vaultID.map { ["--vault-id", "\($0)@\(passwordFile)"] } ?? ["--vault-password-file", passwordFile]
            let made = try Peers.run([tool, "encrypt_string"] + credential + ["--stdin-name", key], input: Array(value.utf8), in: folder)
            try #require(made.status == 0, "\(made.stderr)")
            var snippet = String(decoding: made.stdout, as: UTF8.self)
            if index == 2 {
                // Nested one level, as in a group_vars mapping.
                yaml += "database:\n"
                snippet = snippet.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
            }
            let line = yaml.split(separator: "\n", omittingEmptySubsequences: false).count
            yaml += snippet + "\nafter_\(index): plain\n"
            expected.append((key, line, password, value))
        }
        let values = AnsibleVaultKind.vaultValues(inYAML: Array(yaml.utf8))
        try #require(values.count == expected.count, "\(yaml)")
        let credentials = expected.map { RWSecretKit.Credential.password(SecretBytes(utf8: $0.password)) }
        for (value, want) in zip(values, expected) {
            #expect(value.key == want.key)
            #expect(value.line == want.line, "\(yaml)")
            switch Peers.open(AnsibleVaultKind.self, value.text, credentials) {
            case .success(let opened):
                #expect(opened.plaintext == Array(want.plaintext.utf8))
                #expect(credentials.indices.contains(opened.index) && expected[opened.index].key == want.key)
            case .failure(let error):
                Issue.record("\(want.key): \(error)")
            }
        }
    }
}
