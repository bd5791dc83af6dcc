import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// A whole message of another kind (age, Ansible Vault) from one input, opened with the chain's
/// passwords (in chain order, the last winner first) and the run's `--identity` files; the
/// plaintext goes to a private unnamed file and is released to its destination (the `--binary`
/// rules) only once everything that authenticates it has been checked.
struct KindDecryption {
    let session: DecryptSession
    let identities: [NamedIdentity]

    /// Loads `--identity` files: age identity files (`AGE-SECRET-KEY-1…` lines, `#` comments).
    static func loadIdentities(_ paths: [String]) throws -> [NamedIdentity] {
        var named: [NamedIdentity] = []
        for path in paths {
            var bytes = try readSmallFile(path, what: "identity file", limit: 1 << 20)
            defer { Crypto.cleanse(&bytes) }
            let parsed: [AgeX25519Identity]
            do { parsed = try AgeX25519Identity.parseFile(String(decoding: bytes, as: UTF8.self)) } catch {
                throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
            }
            for (index, identity) in parsed.enumerated() {
                named.append(NamedIdentity(name: parsed.count == 1 ? path : "\(path)#\(index + 1)", identity: identity))
            }
        }
        return named
    }

    /// Opens the message that `input` holds (`kind` recognised it), writing the plaintext to
    /// `destination` once verified; reports the outcome and returns the run's status.
    func run(kind: any MessageKind.Type, input: KindInput, source name: String, destination: VerifiedStream.Destination,
             outputName: String) throws -> ExitStatus {
        let passwords: [ChainPassword]
        do { passwords = try session.client.chainHead()?.chainPasswords() ?? [] } catch let error as StoreError {
            throw CommandFailure(error)
        }
        let folder: String
        if case .file(let path) = destination { folder = RWSecretKit.folder(of: path) } else { folder = temporaryFolder }
        let file: PrivateFile
        do { file = try PrivateFile(in: folder, needsName: { if case .file = destination { true } else { false } }()) } catch {
            return report(outputName, "cannot create: \(error)", .cannotCreate)
        }
        let opened: KindOpened
        do {
            opened = try MessageKinds.open(kind, input: input, passwords: passwords, identities: identities, into: PrivateFilePlaintext(file: file))
        } catch {
            return failed(error, source: name, passwords: passwords.count)
        }
        if case .password(let password) = opened.openedBy { session.client.messageFinished(openedBy: .password(password)) }
        session.global.verboseLine("kind: \(opened.kind.rawValue)")
        session.global.verboseLine("opened by: \(Output.escaped(opened.openedBy.words)) (tried \(opened.tried))")
        do {
            switch destination {
            case .file(let path):
                try file.link(as: path)
            case .descriptor(let fd):
                try file.copy(to: fd)
            case .openedLater(let path):
                let fd = try retryingOnInterrupt { open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0o600) }
                defer { close(fd) }
                var info = stat()
                if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { _ = ftruncate(fd, 0) }
                try file.copy(to: fd)
            }
        } catch {
            if error.isBrokenPipe, case .descriptor = destination { return .success }
            return report(outputName, "\(error)", .ioError)
        }
        return .success
    }

    /// One line for a message that did not open.
    private func failed(_ failure: KindFailure, source name: String, passwords: Int) -> ExitStatus {
        let what = failure.kind == .age ? "age file" : "Ansible Vault"
        switch failure.error {
        case .noMatch(let types) where failure.kind == .age:
            let ours = types.filter { $0 == "scrypt" || $0 == "X25519" }
            if ours.isEmpty {
                return report(name, "an age file for recipients that are not ours (\(types.joined(separator: ", "))): nothing here can open it", .failure)
            }
            if ours.contains("X25519") && identities.isEmpty {
                return report(name, "an age file for X25519 recipients: no identity given opens it (give --identity FILE)", .failure)
            }
            if ours.contains("X25519") {
                return report(name, "an age file for \(types.joined(separator: ", ")) recipients: none of the \(identities.count) identities opens it", .failure)
            }
            return report(name, "no password opened this age file (tried \(failure.tried))", .failure)
        case .noMatch:
            return report(name, "no password opened this \(what) (tried \(failure.tried))", .failure)
        case .io(let error):
            return report(name, "\(error)", error.isMissingInput ? .noInput : .ioError)
        case .tooLarge(let limit):
            return report(name, "\(what) larger than \(limit) bytes", .failure)
        case .armor, .header, .workFactorTooHigh, .headerMAC, .payload:
            return report(name, "\(what): \(failure.error)", .failure)
        }
    }

    private func report(_ name: String, _ reason: String, _ status: ExitStatus) -> ExitStatus {
        Output.standardError.line("rwsecret: \(Output.escaped(name)): \(reason)")
        return status
    }
}

extension KindOpener {
    /// The stored label, where a run-only password came from, or the identity file.
    var words: String {
        switch self {
        case .password(let password): password.name
        case .identity(let name): "identity \(name)"
        }
    }
}

/// The rest of an input read through its descriptor.
final class DescriptorSource: ByteSource {
    private let file: InputFile

    init(_ file: InputFile) { self.file = file }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        guard buffer.count > 0 else { return 0 }
        do { return try file.read(into: buffer.baseAddress!, count: buffer.count) } catch { throw .io(error) }
    }
}
