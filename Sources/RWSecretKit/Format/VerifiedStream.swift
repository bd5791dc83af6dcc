import Dispatch
#if canImport(Glibc)
internal import Glibc
#endif

/// Decrypts one raw message of any size through the chain, in bounded memory,
/// and releases plaintext only after the HMAC has verified.
///
/// **Every byte deciphered is a byte that was authenticated**, by construction:
/// the input is read exactly once. Each chunk read feeds every candidate's
/// HMAC and, in the same step, either
/// - the decipher of the one candidate (one password, or the key): its
///   plaintext goes to a `PrivateFile` (no name; see there), or
/// - a private ciphertext spool, when there are several candidates (the key
///   that will decipher is known only at the end): after the HMAC picks the
///   winner, the spool — which no other process can open or change — is
///   deciphered.
///
/// Nothing reaches the destination before the HMAC verifies: a file
/// destination receives the complete private file by `rename` (it appears
/// whole or not at all, and a failed run leaves an existing file untouched); a
/// descriptor destination (stdout, a FIFO, a device) receives the bytes only
/// afterwards. A regular input that changes while it is read (size or
/// modification time) fails with `inputChanged`, even when what was read verifies.
///
/// Costs: memory, two 1 MiB buffers per thread; disk, the message's size in
/// the private file (in the destination's folder for a file, else the
/// temporary folder), twice that with several candidates (spool, then
/// plaintext for a file destination); time, one read of the input, the
/// HMACs and AES on up to `jobs` threads, plus one copy of the plaintext for a
/// descriptor destination.
public struct VerifiedStream {
    /// Where verified plaintext goes.
    public enum Destination: Sendable {
        /// Replace the file at this path: plaintext is made in a private file in
        /// the path's folder (as given — no symbolic link is resolved) and
        /// renamed over it once verified.
        case file(String)
        /// Write to this open descriptor once verified (stdout, a FIFO, a device).
        case descriptor(Int32)
        /// Open this path for writing (the kernel's rules for following links
        /// apply), only once verified: for a symbolic link or a non-regular file.
        case openedLater(String)
    }

    /// Why the stream failed. Facts only; the caller words them.
    public enum Failure: Error, Sendable {
        /// The chain could not be had (its store could not be opened): what the chain's provider threw.
        case chainUnavailable(any Error)
        /// The message is malformed (before any key was tried).
        case format(RNCryptorError)
        /// The input looks like base64 text, not a raw message.
        case base64Text
        /// No candidate opened the message, or the padding was bad.
        case notOpened(DecryptionFailure)
        /// A regular input file changed while it was read.
        case inputChanged
        /// Reading the input failed.
        case read(SystemError)
        /// The private file or the destination could not be created.
        case create(SystemError)
        /// Writing failed.
        case write(SystemError)
    }

    /// What opened the message.
    public struct Opened: Sendable {
        /// The password or the key that opened it.
        public let openedBy: Opener
        /// Plaintext bytes written.
        public let plaintextSize: Int
    }

    /// One candidate: a form of a password of the chain, or the key.
    struct Candidate {
        let opener: Opener
        let hmacKey: SecretBytes
        let encryptionKey: () -> SecretBytes
    }

    /// The chunk size of every read.
    package static let chunkSize = 1 << 20

    /// Threads to use (1: everything on the calling thread).
    public var jobs: Int
    /// Called after each chunk read with the bytes read so far and the input's size when known.
    public var progress: ((_ done: Int, _ total: Int?) -> Void)?

    /// A stream that uses up to `jobs` threads.
    public init(jobs: Int = 1) { self.jobs = max(1, jobs) }

    /// Decrypts the message read from `input` (read once, to its end) with the
    /// client's chain, and writes the plaintext to `destination` only once verified.
    /// The client's store is opened only when the message is password-based.
    public func decrypt(input: Int32, client: PasswordClient, to destination: Destination) throws(Failure) -> Opened {
        try decrypt(input: input, chain: { header in try client.chainHead(for: header) }, to: destination)
    }

    /// Decrypts the message read from `input` (read once, to its end) with the chain
    /// that `chain` gives for its header (nil: nothing to try), and writes the
    /// plaintext to `destination` only once verified. What `chain` throws fails the
    /// run as `chainUnavailable`, before anything is written.
    public func decrypt(input: Int32, chain: (MessageHeader) throws -> (any DecryptionHandler)?,
                        to destination: Destination) throws(Failure) -> Opened {
        let before = try? fileStatus(input)
        let regular = before.map { ($0.st_mode & S_IFMT) == S_IFREG } ?? false
        let total = regular ? before.map { Int($0.st_size) } : nil

        // One buffer for the whole run: up to 32 held-back bytes (maybe the tag), then a chunk.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Crypto.tagSize + Self.chunkSize, alignment: 16)
        defer { Crypto.cleanse(buffer); buffer.deallocate() }
        var filled: Int
        do { filled = try readFully(input, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Self.chunkSize])) } catch { throw .read(error) }
        let first = Array(buffer[0..<min(filled, 64)])
        let header: MessageHeader
        do { header = try MessageHeader(parsing: first) } catch {
            if Self.looksLikeBase64Text(first) { throw .base64Text }
            throw .format(error)
        }
        if let total {
            do { try header.validate(messageLength: total) } catch { throw .format(error) }
        }

        let head: (any DecryptionHandler)?
        do { head = try chain(header) } catch { throw .chainUnavailable(error) }
        let (candidates, passwords) = try Self.candidates(for: header, head: head)
        let single = candidates.count == 1
        let folder: String
        if case .file(let path) = destination { folder = RWSecretKit.folder(of: path) } else { folder = temporaryFolder }
        let store: PrivateFile
        do {
            store = try PrivateFile(in: single ? folder : temporaryFolder, needsName: single && destination.isFile)
        } catch { throw .create(error) }

        // The one pass: every HMAC, and the decipher (one candidate) or the spool.
        let authenticators = candidates.map { BodyAuthenticator(header: header, hmacKey: $0.hmacKey) }
        let decipher = single ? BodyDecipher(header: header, encryptionKey: candidates[0].encryptionKey()) : nil
        let workers = Workers(count: min(jobs, authenticators.count + 1))
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(Self.chunkSize + 2 * Crypto.blockSize)
        defer { Crypto.cleanse(&plaintext) }
        let sink = FailureSlot()
        var start = header.length          // buffer[start..<filled] is read and not yet processed
        var consumed = filled
        var atEnd = filled < Self.chunkSize
        progress?(consumed, total)
        while true {
            // Everything but the last 32 bytes read so far is body (they may be the tag).
            let ready = max(0, filled - start - Crypto.tagSize)
            if ready > 0 {
                let body = UnsafeRawBufferPointer(rebasing: buffer[start..<(start + ready)])
                workers.run(tasks: authenticators.count + 1) { task in
                    if task < authenticators.count {
                        authenticators[task].update(body)
                    } else if let decipher {
                        plaintext.removeAll(keepingCapacity: true)
                        decipher.update(body, into: &plaintext)
                        do throws(SystemError) { try store.write(plaintext) } catch { sink.failure = .write(error) }
                    } else {
                        do throws(SystemError) { try store.write(body) } catch { sink.failure = .write(error) }
                    }
                }
                if let failure = sink.failure { throw failure }
            }
            // Keep what was held back at the front, then read the next chunk after it.
            let held = filled - start - ready
            if held > 0, start + ready > 0 { memmove(buffer.baseAddress!, buffer.baseAddress! + start + ready, held) }
            start = 0
            filled = held
            if atEnd { break }
            let n: Int
            do { n = try readFully(input, into: UnsafeMutableRawBufferPointer(rebasing: buffer[held..<(held + Self.chunkSize)])) } catch { throw .read(error) }
            filled += n
            consumed += n
            atEnd = n < Self.chunkSize
            progress?(consumed, total)
        }
        let tag = Array(buffer[0..<filled])
        if regular, let before, let after = try? fileStatus(input), Self.changed(before, after) { throw .inputChanged }
        do { try header.validate(messageLength: consumed) } catch { throw .format(error) }

        // The HMAC decides, in chain order, before anything else is said.
        var winner: Int?
        for (index, authenticator) in authenticators.enumerated() {
            // Every tag is checked, so the time does not say which candidate matched.
            if authenticator.matches(tag: tag) && winner == nil { winner = index }
        }
        guard let winner else {
            throw .notOpened(header.isPasswordBased ? .noPasswordOpened(tried: passwords) : .keyDidNotOpen)
        }
        let opened = candidates[winner]

        // Verified. Finish the plaintext, then release it.
        let result: PrivateFile
        if let decipher {
            plaintext.removeAll(keepingCapacity: true)
            guard decipher.finalize(into: &plaintext) else { throw .notOpened(.badPadding) }
            do { try store.write(plaintext) } catch { throw .write(error) }
            result = store
        } else {
            result = try Self.decipherSpool(store, header: header, key: opened.encryptionKey(), destination: destination, folder: folder)
        }
        try Self.release(result, to: destination)
        return Opened(openedBy: opened.opener, plaintextSize: result.size)
    }

    /// The candidates in chain order — every form of every password
    /// (`MessageHeader.kdfPasswords`), HMAC keys derived in one batch — or the key.
    private static func candidates(for header: MessageHeader, head: (any DecryptionHandler)?) throws(Failure) -> (candidates: [Candidate], passwords: Int) {
        let offered = head?.chainCandidates(for: header) ?? []
        guard !offered.isEmpty else {
            throw .notOpened(header.isPasswordBased ? .noPasswordOpened(tried: 0) : .needsKey)
        }
        // Password forms' HMAC keys in one batch per iteration count (one count per chain in practice).
        var hmacKeys: [Int: SecretBytes] = [:]
        var requests: [Int: [(index: Int, password: SecretBytes)]] = [:]
        for (index, candidate) in offered.enumerated() {
            switch candidate.keying {
            case .keys(let keys): hmacKeys[index] = keys.hmacKey
            case .password(let form, let iterations): requests[iterations, default: []].append((index, form))
            }
        }
        if !requests.isEmpty {
            guard let salts = header.salts else { preconditionFailure("password candidates for a key-based message") }
            for (iterations, forms) in requests {
                let keys = KeyDerivation.keys(forms.map { ($0.password, salts.hmac) }, iterations: iterations)
                for (form, key) in zip(forms, keys) { hmacKeys[form.index] = key }
            }
        }
        var names = Set<String>()
        let candidates = offered.enumerated().map { index, candidate in
            if let name = candidate.opener.passwordName { names.insert(name) }
            return Candidate(opener: candidate.opener, hmacKey: hmacKeys[index]!) {
                switch candidate.keying {
                case .keys(let keys): keys.encryptionKey
                case .password(let form, let iterations):
                    KeyDerivation.key(password: form, salt: header.salts!.encryption, iterations: iterations)
                }
            }
        }
        return (candidates, max(names.count, header.isPasswordBased ? 0 : 1))
    }

    /// Deciphers a verified private spool into a new private file (in `folder`
    /// for a file destination, so that it can be renamed there).
    private static func decipherSpool(_ spool: PrivateFile, header: MessageHeader, key: SecretBytes, destination: Destination, folder: String) throws(Failure) -> PrivateFile {
        let output: PrivateFile
        do { output = try PrivateFile(in: folder, needsName: destination.isFile) } catch { throw .create(error) }
        let decipher = BodyDecipher(header: header, encryptionKey: key)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(chunkSize + 2 * Crypto.blockSize)
        defer { Crypto.cleanse(&plaintext) }
        var offset = 0
        do throws(SystemError) {
            while offset < spool.size {
                let n = try spool.read(at: offset, into: buffer)
                guard n > 0 else { throw SystemError(code: EIO) }
                offset += n
                plaintext.removeAll(keepingCapacity: true)
                decipher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), into: &plaintext)
                try output.write(plaintext)
            }
        } catch { throw .write(error) }
        plaintext.removeAll(keepingCapacity: true)
        guard decipher.finalize(into: &plaintext) else { throw .notOpened(.badPadding) }
        do { try output.write(plaintext) } catch { throw .write(error) }
        return output
    }

    /// Hands verified plaintext to the destination.
    private static func release(_ file: PrivateFile, to destination: Destination) throws(Failure) {
        switch destination {
        case .file(let path):
            do { try file.link(as: path) } catch { throw .create(error) }
        case .descriptor(let fd):
            do { try file.copy(to: fd) } catch { throw .write(error) }
        case .openedLater(let path):
            let fd: Int32
            do { fd = try retryingOnInterrupt { open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0o600) } } catch { throw .create(error) }
            defer { close(fd) }
            // The same file as stdout (`-o /dev/stdout`): write through stdout, which keeps
            // its own offset and append mode. Another regular file is replaced in place.
            if let opened = try? fileStatus(fd), (opened.st_mode & S_IFMT) == S_IFREG {
                if let out = try? fileStatus(STDOUT_FILENO), out.st_dev == opened.st_dev, out.st_ino == opened.st_ino {
                    do { try file.copy(to: STDOUT_FILENO) } catch { throw .write(error) }
                    return
                }
                guard ftruncate(fd, 0) == 0 else { throw .write(.current) }
            }
            do { try file.copy(to: fd) } catch { throw .write(error) }
        }
    }

    private static func changed(_ a: stat, _ b: stat) -> Bool {
        a.st_size != b.st_size || a.st_mtim.tv_sec != b.st_mtim.tv_sec || a.st_mtim.tv_nsec != b.st_mtim.tv_nsec
            || a.st_ctim.tv_sec != b.st_ctim.tv_sec || a.st_ctim.tv_nsec != b.st_ctim.tv_nsec
    }

    /// Whether `prefix` is base64 text (what `--binary` was not meant for).
    package static func looksLikeBase64Text(_ prefix: [UInt8]) -> Bool {
        let sample = prefix.prefix(64)
        guard sample.count >= 4 else { return false }
        return sample.allSatisfy { byte in
            Base64.isAlphabetCharacter(byte) || [UInt8(ascii: "="), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: " "), UInt8(ascii: "\t")].contains(byte)
        }
    }
}

extension VerifiedStream.Destination {
    var isFile: Bool { if case .file = self { true } else { false } }
}

/// Runs a chunk's independent tasks (one per HMAC, one for the decipher or the spool) on up to `count` threads.
private final class Workers: @unchecked Sendable {
    let count: Int
    init(count: Int) { self.count = max(1, count) }

    /// Runs `body(0..<tasks)`, each task exactly once, and returns when all are done.
    /// Tasks touch disjoint state (their own authenticator, or the decipher and its file).
    func run(tasks: Int, _ body: (Int) -> Void) {
        guard count > 1, tasks > 1 else {
            for task in 0..<tasks { body(task) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let box = UncheckedBox(body)
            let threads = min(count, tasks)
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for task in stride(from: thread, to: tasks, by: threads) { box.value(task) }
            }
        }
    }
}

/// The first write failure of a chunk's tasks (written by one task, read after they all finish).
private final class FailureSlot: @unchecked Sendable {
    var failure: VerifiedStream.Failure?
}

private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
