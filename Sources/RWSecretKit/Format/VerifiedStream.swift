import Dispatch
public import SystemPackage
#if canImport(Glibc)
internal import Glibc
#endif
internal import CLinuxSyscalls

/// Decrypts one raw message of any size through the chain, in bounded memory,
/// and releases plaintext only after the HMAC has verified.
///
/// **Every byte deciphered is a byte that was authenticated**, by construction:
/// the input is read exactly once, each chunk into a slot of a small ring, and
/// every consumer of the chunk reads it there: every candidate's HMAC and
/// either
/// - the decipher of the one candidate (one password, or the key): its
///   plaintext goes to a private file (mode 0600, made with `O_TMPFILE`: no name
///   until it is complete; a random hidden name where the file system has no
///   `O_TMPFILE`), or
/// - a private ciphertext spool, when there are several candidates (the key
///   that will decipher is known only at the end): after the HMAC picks the
///   winner, the spool — which no other process can open or change — is
///   deciphered, in place for a file destination (it then becomes the file),
///   else straight to the descriptor. Its last block is deciphered first, so
///   bad padding is found before any byte is released.
///
/// Nothing reaches the destination before the HMAC verifies: a file
/// destination receives the complete private file by `PrivateFile.link` (it
/// appears whole or not at all, a failed run leaves an existing file untouched,
/// and plaintext never has a name a SIGKILL could leave behind, other than in
/// `link`'s two-call replacement of an existing file; a filesystem without
/// `O_TMPFILE` is refused rather than given a named plaintext); a
/// descriptor destination (stdout, a FIFO, a device) receives the bytes only
/// afterwards. A regular input that changes while it is read (size or
/// modification time) fails with `inputChanged`, even when what was read verifies.
///
/// Threads: the HMACs, the decipher or spool, and the reading are lanes that
/// each take the chunks in order; any of up to `jobs` threads runs any lane with
/// a chunk waiting (only the calling thread reads), so k candidates' HMACs spread
/// over the cores. The spool's CBC body is then deciphered in chunks on up to
/// `jobs` threads (each chunk from the ciphertext block before it). `jobs` 1:
/// everything on the calling thread, no other thread started.
///
/// Costs: memory, four 1 MiB read slots, one 1 MiB plaintext buffer, and one
/// 1 MiB buffer per thread while a spool is deciphered; disk, the message's size in
/// the private file (in the destination's folder for a file, else the
/// temporary folder), with several candidates too (the spool is deciphered in
/// place, or streamed out); time, one read of the input, the HMACs and AES on up
/// to `jobs` threads, plus one copy of the plaintext for a descriptor
/// destination (with several candidates: one read of the spool instead).
///
/// Not `Sendable`: a stream is a few settings and a `progress` closure that runs on the
/// decrypting thread. Make one per task; the client it decrypts with may be shared.
public struct VerifiedStream {
    /// Where verified plaintext goes.
    public enum Destination: Sendable {
        /// Replace the file at this path: plaintext is made in a private file in
        /// the path's folder (as given — no symbolic link is resolved) and
        /// renamed over it once verified.
        case file(FilePath)
        /// Write to this open descriptor once verified (stdout, a FIFO, a device).
        case descriptor(FileDescriptor)
        /// Open this path for writing (the kernel's rules for following links
        /// apply), only once verified: for a symbolic link or a non-regular file.
        case openedLater(FilePath)
    }

    /// Why the stream failed, in full: facts the tool words (package access; a library
    /// user gets the ``DecryptionFailure`` each maps to).
    package enum Failure: Error, Sendable {
        /// The chain could not be had (its store could not be opened): what the chain's provider threw.
        case chainUnavailable(any Error)
        /// The message is malformed (before any key was tried).
        case format(RNCryptorError)
        /// The input looks like base64 text, not a raw message.
        case base64Text
        /// A message of another kind (age, Ansible Vault, OpenPGP); the bytes read so far (the input goes on after them).
        case otherKind([UInt8])
        /// No candidate opened the message, or the padding was bad.
        case notOpened(DecryptionFailure)
        /// A regular input file changed while it was read.
        case inputChanged
        /// Reading the input failed.
        case read(Errno)
        /// The private file or the destination could not be created. EOPNOTSUPP for
        /// a file destination: its folder's filesystem cannot make an unnamed file
        /// (`O_TMPFILE`), and a named one would hold plaintext that a SIGKILL leaves
        /// behind, so nothing was written.
        case create(Errno)
        /// Writing failed.
        case write(Errno)
        /// The private file in the temporary folder (`folder`: `$TMPDIR`, else /tmp),
        /// for a destination that is not a file, could not be made or written (a full
        /// temporary folder): not a fault of the destination.
        case temporaryFile(Errno, folder: String)
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
    package var jobs: Int
    /// Called after each chunk read with the bytes read so far and the input's size when known.
    public var progress: ((_ done: Int, _ total: Int?) -> Void)?

    /// A stream that uses up to `jobs` threads.
    public init(jobs: Int = 1) { self.jobs = max(1, jobs) }

    /// Whether `decrypt(input:chain:to:)` opens versions 0 and 1 (refused by default:
    /// `.format(.legacyVersion)`, before the chain is asked; see `LegacyFormats`).
    package var legacyFormats: LegacyFormats = .refused

    /// Chunks read ahead of the slowest consumer (each `chunkSize` bytes).
    static let ringSlots = 4

    /// Decrypts the message read from `input` (read once, to its end) with the
    /// client's chain, and writes the plaintext to `destination` only once verified.
    /// The client's store is opened only when the message is password-based.
    /// The client's `legacyFormats` decides whether a v0 or v1 message is opened
    /// (this stream's own setting is not used here).
    ///
    /// Throws what ``PasswordClient/decrypt(_:)`` throws, and ``DecryptionFailure/notRNCryptor``
    /// (base64 text, or a message of another kind), ``DecryptionFailure/inputChanged`` and
    /// ``DecryptionFailure/io(_:)`` for the stream's own failures; nothing was written then.
    public func decrypt(input: FileDescriptor, client: PasswordClient, to destination: Destination) throws(DecryptionFailure) -> Opened {
        do { return try decrypt(input: input.rawValue, client: client, to: destination) } catch { throw DecryptionFailure(error) }
    }

    /// `decrypt(input:client:to:)` for a raw descriptor (the tool's).
    package func decrypt(input: Int32, client: PasswordClient, to destination: Destination) throws(Failure) -> Opened {
        var stream = self
        stream.legacyFormats = client.legacyFormats
        return try stream.decrypt(input: input, chain: { header in try client.chainHead(for: header) }, to: destination)
    }

    /// Decrypts the message read from `input` (read once, to its end) with the chain
    /// that `chain` gives for its header (nil: nothing to try), and writes the
    /// plaintext to `destination` only once verified. What `chain` throws fails the
    /// run as `chainUnavailable`, before anything is written.
    package func decrypt(input: Int32, chain: (MessageHeader) throws -> (any DecryptionHandler)?,
                        to destination: Destination) throws(Failure) -> Opened {
        let before = try? fileStatus(input)
        let regular = before.map { ($0.st_mode & S_IFMT) == S_IFREG } ?? false
        let total = regular ? before.map { Int($0.st_size) } : nil
        // A pipe's 64 KiB default wakes the writer and this reader 16 times per chunk.
        if let before, (before.st_mode & S_IFMT) == S_IFIFO { _ = rws_set_pipe_size(input, Int32(Self.chunkSize)) }

        // Each chunk is read once into a slot of the ring; every consumer reads it there.
        // A slot holds up to 32 held-back bytes of the chunk before (maybe the tag), then a chunk.
        let ring = ChunkRing(slots: Self.ringSlots, slotSize: Crypto.tagSize + Self.chunkSize)
        let filled: Int
        do { filled = try readFully(input, into: UnsafeMutableRawBufferPointer(rebasing: ring.slot(0)[0..<Self.chunkSize])) } catch { throw .read(error) }
        let first = Array(ring.slot(0)[0..<min(filled, 64)])
        let header: MessageHeader
        do { header = try MessageHeader(parsing: first) } catch {
            let read = Array(ring.slot(0)[0..<filled])
            if MessageKinds.detect(read.prefix(detectionLength)) != nil || MessageKinds.isOpenPGP(read.prefix(detectionLength)) { throw .otherKind(read) }
            if Self.looksLikeBase64Text(first) { throw .base64Text }
            throw .format(error)
        }
        if let total {
            do { try header.validate(messageLength: total) } catch { throw .format(error) }
        }
        do { try legacyFormats.check(header) } catch { throw .format(error) }

        let head: (any DecryptionHandler)?
        do { head = try chain(header) } catch { throw .chainUnavailable(error) }
        let (candidates, passwords) = try Self.candidates(for: header, head: head)
        let single = candidates.count == 1
        let folder: String
        if case .file(let path) = destination { folder = RWSecretKit.folder(of: path.string) } else { folder = temporaryFolder }
        // One candidate: its plaintext. Several: the ciphertext, deciphered in place once
        // the winner is known. For a file destination it is made in the destination's
        // folder, to become the destination by `link`: only an unnamed one (a named one
        // would hold plaintext a SIGKILL leaves behind), and the hidden names killed runs
        // left in that folder are swept first.
        let store: PrivateFile
        if destination.isFile {
            // (PrivateFile sweeps the folder: needsName.)
            do { store = try PrivateFile(in: folder, needsName: true, namedFallback: false) } catch { throw .create(error) }
        } else {
            do { store = try PrivateFile(in: folder, needsName: false) } catch { throw .temporaryFile(error, folder: folder) }
        }
        let storeFailure: (SystemError) -> Failure = { [isFile = destination.isFile] error in
            isFile ? .write(error) : .temporaryFile(error, folder: folder)
        }

        // The one pass: every HMAC, and the decipher (one candidate) or the spool, each a lane
        // that takes the chunks in order; the lanes run on up to `jobs` threads.
        let authenticators = candidates.map { BodyAuthenticator(header: header, hmacKey: $0.hmacKey) }
        let decipher = single ? BodyDecipher(header: header, encryptionKey: candidates[0].encryptionKey()) : nil
        let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize + 2 * Crypto.blockSize, alignment: 16)
        defer { Crypto.cleanse(plaintext); plaintext.deallocate() }
        let consume: (Int, UnsafeRawBufferPointer) -> Failure? = { lane, body in
            if lane < authenticators.count {
                authenticators[lane].update(body)
                return nil
            }
            do throws(SystemError) {
                if let decipher {
                    let count = decipher.update(body, to: plaintext.baseAddress!)
                    try store.write(UnsafeRawBufferPointer(rebasing: plaintext[0..<count]))
                } else {
                    try store.write(body)
                }
            } catch { return storeFailure(error) }
            return nil
        }
        // The reader. What is held back (maybe the tag) is `held` in slot `heldSlot`.
        var consumed = filled
        var heldSlot = 0
        let firstReady = max(0, filled - header.length - Crypto.tagSize)
        var held = min(filled, header.length + firstReady)..<filled
        let firstBody = header.length..<(header.length + firstReady)
        progress?(consumed, total)
        let read: (Int) -> ReadResult = { slot in
            let target = ring.slot(slot)
            if !held.isEmpty {
                target.baseAddress!.copyMemory(from: ring.slot(heldSlot).baseAddress! + held.lowerBound, byteCount: held.count)
            }
            var n = 0
            do throws(SystemError) {
                n = try readFully(input, into: UnsafeMutableRawBufferPointer(rebasing: target[held.count..<(held.count + Self.chunkSize)]))
            } catch { return .failed(.read(error)) }
            consumed += n
            progress?(consumed, total)
            let filled = held.count + n
            let ready = max(0, filled - Crypto.tagSize)
            heldSlot = slot
            held = ready..<filled
            return .chunk(0..<ready, last: n < Self.chunkSize)
        }
        let lanes = authenticators.count + 1
        if let failure = ring.run(threads: min(jobs, lanes + 1), lanes: lanes, first: firstBody, firstIsLast: filled < Self.chunkSize, read: read, consume: consume) {
            throw failure
        }
        let tag = Array(ring.slot(heldSlot)[held])
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
        if let decipher {
            var last: [UInt8] = []
            defer { Crypto.cleanse(&last) }
            guard decipher.finalize(into: &last) else { throw .notOpened(.badPadding) }
            do { try store.write(last) } catch { throw storeFailure(error) }
            if case .file(let path) = destination {
                do { try store.link(as: path.string) } catch { throw .create(error) }
            } else {
                try Self.deliver(to: destination) { fd throws(Failure) in
                    do throws(SystemError) { try store.copy(to: fd) } catch { throw .write(error) }
                }
            }
            return Opened(openedBy: opened.opener, plaintextSize: store.size)
        }
        let spool = SpoolDecipher(spool: store, header: header, key: opened.encryptionKey(), threads: jobs)
        try spool.checkPadding()
        if case .file(let path) = destination {
            try spool.run(to: nil)
            do { try store.link(as: path.string) } catch { throw .create(error) }
        } else {
            try Self.deliver(to: destination) { fd throws(Failure) in try spool.run(to: fd) }
        }
        return Opened(openedBy: opened.opener, plaintextSize: spool.plaintextSize)
    }

    /// The candidates in chain order — every form of every password
    /// (`MessageHeader.kdfPasswords`), HMAC keys derived in one batch — or the key.
    private static func candidates(for header: MessageHeader, head: (any DecryptionHandler)?) throws(Failure) -> (candidates: [Candidate], passwords: Int) {
        let offered = head?.chainCandidates(for: header) ?? []
        guard !offered.isEmpty else {
            throw .notOpened(.endOfChain(for: header))
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

    /// Hands verified plaintext to a destination that is not a file to replace: `emit`
    /// writes it to the descriptor.
    private static func deliver(to destination: Destination, _ emit: (Int32) throws(Failure) -> Void) throws(Failure) {
        switch destination {
        case .file:
            preconditionFailure("a file destination is linked, not written through")
        case .descriptor(let fd):
            try emit(fd.rawValue)
        case .openedLater(let path):
            let fd: Int32
            do { fd = try retryingOnInterrupt { open(path.string, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0o600) } } catch { throw .create(error) }
            defer { close(fd) }
            // The same file as stdout (`-o /dev/stdout`): write through stdout, which keeps
            // its own offset and append mode. Another regular file is replaced in place.
            if let opened = try? fileStatus(fd), (opened.st_mode & S_IFMT) == S_IFREG {
                if let out = try? fileStatus(STDOUT_FILENO), out.st_dev == opened.st_dev, out.st_ino == opened.st_ino {
                    try emit(STDOUT_FILENO)
                    return
                }
                guard ftruncate(fd, 0) == 0 else { throw .write(.current) }
            }
            try emit(fd)
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

/// What the reader made of the next chunk.
private enum ReadResult {
    /// The chunk's body bytes in its slot; `last`: the input has ended.
    case chunk(Range<Int>, last: Bool)
    case failed(VerifiedStream.Failure)
}

/// The first pass's schedule: chunks read once into a ring of slots, and lanes (each
/// candidate's HMAC, the decipher or the spool) that each take every chunk in order.
///
/// Any thread runs any lane that has a chunk waiting — the one furthest behind first,
/// so that slots come free — and only the calling thread reads (and reports progress).
/// A slot is read into again once every lane is done with its chunk. With one thread,
/// the calling thread does it all in turn; no other thread is started.
private final class ChunkRing: @unchecked Sendable {
    let slots: Int
    let slotSize: Int
    private let memory: UnsafeMutableRawBufferPointer
    // Shared state, touched under `mutex` only.
    private var bodies: [Range<Int>]
    private var pending: [Int]
    private var next: [Int] = []
    private var busy: [Bool] = []
    private var published = 0
    private var readingDone = false
    private var failure: VerifiedStream.Failure?
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(slots: Int, slotSize: Int) {
        self.slots = slots
        self.slotSize = slotSize
        memory = .allocate(byteCount: slots * slotSize, alignment: 16)
        bodies = Array(repeating: 0..<0, count: slots)
        pending = Array(repeating: 0, count: slots)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        Crypto.cleanse(memory)
        memory.deallocate()
        pthread_mutex_destroy(mutex)
        pthread_cond_destroy(condition)
        mutex.deallocate()
        condition.deallocate()
    }

    func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: memory[(index * slotSize)..<((index + 1) * slotSize)])
    }

    /// Runs `lanes` lanes over every chunk, starting with the one already in slot 0
    /// (body `first`); `read(slot)` reads the next chunk into `slot`. Returns the
    /// first failure of a read or a lane (everything stops at it), nil when done.
    func run(threads: Int, lanes: Int, first: Range<Int>, firstIsLast: Bool,
             read: (Int) -> ReadResult, consume: (Int, UnsafeRawBufferPointer) -> VerifiedStream.Failure?) -> VerifiedStream.Failure? {
        next = Array(repeating: 0, count: lanes)
        busy = Array(repeating: false, count: lanes)
        publish(slot: 0, body: first, last: firstIsLast, lanes: lanes)
        guard threads > 1 else {
            work(reader: true, lanes: lanes, read: read, consume: consume)
            return firstFailure()
        }
        withoutActuallyEscaping(read) { read in
            withoutActuallyEscaping(consume) { consume in
                let box = UncheckedBox((read, consume))
                let group = DispatchGroup()
                for _ in 1..<threads {
                    DispatchQueue.global().async(group: group) {
                        self.work(reader: false, lanes: lanes, read: box.value.0, consume: box.value.1)
                    }
                }
                work(reader: true, lanes: lanes, read: read, consume: consume)
                group.wait()
            }
        }
        return firstFailure()
    }

    private func firstFailure() -> VerifiedStream.Failure? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return failure
    }

    /// Called with `mutex` held (or before any other thread exists).
    private func publish(slot: Int, body: Range<Int>, last: Bool, lanes: Int) {
        if !body.isEmpty {
            bodies[slot] = body
            pending[slot] = lanes
            published += 1
        }
        if last { readingDone = true }
    }

    private func work(reader: Bool, lanes: Int, read: (Int) -> ReadResult, consume: (Int, UnsafeRawBufferPointer) -> VerifiedStream.Failure?) {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        while failure == nil {
            let free = published % slots
            if reader && !readingDone && pending[free] == 0 {
                pthread_mutex_unlock(mutex)
                let result = read(free)
                pthread_mutex_lock(mutex)
                switch result {
                case .chunk(let body, let last): publish(slot: free, body: body, last: last, lanes: lanes)
                case .failed(let error): failure = error
                }
                pthread_cond_broadcast(condition)
                continue
            }
            var chosen = -1
            for lane in 0..<lanes where !busy[lane] && next[lane] < published {
                if chosen < 0 || next[lane] < next[chosen] { chosen = lane }
            }
            if chosen >= 0 {
                let slot = next[chosen] % slots
                let body = bodies[slot]
                busy[chosen] = true
                pthread_mutex_unlock(mutex)
                let error = consume(chosen, UnsafeRawBufferPointer(rebasing: self.slot(slot)[body]))
                pthread_mutex_lock(mutex)
                busy[chosen] = false
                next[chosen] += 1
                pending[slot] -= 1
                if let error, failure == nil { failure = error }
                pthread_cond_broadcast(condition)
                continue
            }
            if readingDone && next.allSatisfy({ $0 == published }) { return }
            pthread_cond_wait(condition, mutex)
        }
    }
}

/// The second pass with several candidates: the verified spool (the body's ciphertext)
/// deciphered with the winner's key, in place (it then becomes the destination file) or
/// to a descriptor in order.
///
/// CBC (v1–v3): the last block first, so bad padding is known before any byte is
/// released; then chunks of whole blocks, each from the ciphertext block before it, on up
/// to `threads` threads. The counter mode of v0 runs on one thread.
private final class SpoolDecipher: @unchecked Sendable {
    let spool: PrivateFile
    let header: MessageHeader
    let key: SecretBytes
    let threads: Int
    let chunkSize = VerifiedStream.chunkSize
    /// Body bytes before the last block (CBC), deciphered in chunks.
    private let bulk: Int
    private var last: [UInt8] = []
    private(set) var plaintextSize: Int
    // Shared state of a run, under `mutex`.
    private var nextChunk = 0
    private var nextPrevious: [UInt8] = []
    private var nextToWrite = 0
    private var failure: VerifiedStream.Failure?
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(spool: PrivateFile, header: MessageHeader, key: SecretBytes, threads: Int) {
        self.spool = spool
        self.header = header
        self.key = key
        self.threads = max(1, threads)
        bulk = header.isCounterMode ? spool.size : max(0, spool.size - Crypto.blockSize)
        plaintextSize = spool.size
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        Crypto.cleanse(&last)
        pthread_mutex_destroy(mutex)
        pthread_cond_destroy(condition)
        mutex.deallocate()
        condition.deallocate()
    }

    private func read(_ count: Int, at offset: Int) throws(VerifiedStream.Failure) -> [UInt8] {
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        defer { raw.deallocate() }
        var n = 0
        do throws(SystemError) { n = try spool.read(at: offset, into: raw) } catch { throw .write(error) }
        guard n == count else { throw .write(SystemError(code: EIO)) }
        return Array(raw)
    }

    /// Deciphers the last block and checks its padding (CBC), before anything is released.
    func checkPadding() throws(VerifiedStream.Failure) {
        guard !header.isCounterMode else { return }
        guard spool.size >= Crypto.blockSize, spool.size % Crypto.blockSize == 0 else { throw .format(.badLength) }
        let previous = bulk >= Crypto.blockSize ? try read(Crypto.blockSize, at: bulk - Crypto.blockSize) : header.iv
        let block = try read(Crypto.blockSize, at: bulk)
        guard let plaintext = CBCRanges(key: key).lastBlock(block, previous: previous) else { throw .notOpened(.badPadding) }
        last = plaintext
        plaintextSize = bulk + plaintext.count
    }

    /// Deciphers the whole body: in place when `fd` is nil (the spool is cut to the
    /// plaintext's size), else written to `fd` in order.
    func run(to fd: Int32?) throws(VerifiedStream.Failure) {
        if header.isCounterMode {
            try runCounterMode(to: fd)
            return
        }
        let chunks = (bulk + chunkSize - 1) / chunkSize
        nextChunk = 0
        nextPrevious = header.iv
        nextToWrite = 0
        let workers = min(threads, chunks)
        if workers > 1 {
            let group = DispatchGroup()
            for _ in 1..<workers { DispatchQueue.global().async(group: group) { self.work(chunks: chunks, to: fd) } }
            work(chunks: chunks, to: fd)
            group.wait()
        } else if chunks > 0 {
            work(chunks: chunks, to: fd)
        }
        pthread_mutex_lock(mutex)
        let failure = self.failure
        pthread_mutex_unlock(mutex)
        if let failure { throw failure }
        let tail = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, last.count), alignment: 16)
        defer { Crypto.cleanse(tail); tail.deallocate() }
        tail.copyBytes(from: last)
        let bytes = UnsafeRawBufferPointer(rebasing: tail[0..<last.count])
        do throws(SystemError) {
            if let fd {
                try writeAll(fd, bytes)
            } else {
                try spool.write(bytes, at: bulk)
                try spool.truncate(to: plaintextSize)
            }
        } catch { throw .write(error) }
    }

    private func work(chunks: Int, to fd: Int32?) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { Crypto.cleanse(buffer); buffer.deallocate() }
        let ranges = CBCRanges(key: key)
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        while failure == nil && nextChunk < chunks {
            let chunk = nextChunk
            nextChunk += 1
            let previous = nextPrevious
            let start = chunk * chunkSize
            let count = min(chunkSize, bulk - start)
            // The block before the next chunk, read while it is still ciphertext: this
            // chunk, which holds it, is written only after it is taken.
            if chunk + 1 < chunks {
                do { nextPrevious = try read(Crypto.blockSize, at: start + count - Crypto.blockSize) } catch {
                    failure = error
                    break
                }
            }
            pthread_mutex_unlock(mutex)
            let space = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            var error: VerifiedStream.Failure?
            do throws(SystemError) {
                if try spool.read(at: start, into: space) != count { throw SystemError(code: EIO) }
                ranges.decipher(space, previous: previous)
                if fd == nil { try spool.write(UnsafeRawBufferPointer(space), at: start) }
            } catch let failed { error = .write(failed) }
            pthread_mutex_lock(mutex)
            if let fd, error == nil {
                while nextToWrite != chunk && failure == nil { pthread_cond_wait(condition, mutex) }
                if failure != nil { break }
                pthread_mutex_unlock(mutex)
                do { try writeAll(fd, UnsafeRawBufferPointer(space)) } catch let failed { error = .write(failed) }
                pthread_mutex_lock(mutex)
                nextToWrite += 1
            }
            if let error, failure == nil { failure = error }
            pthread_cond_broadcast(condition)
        }
    }

    private func runCounterMode(to fd: Int32?) throws(VerifiedStream.Failure) {
        let decipher = BodyDecipher(header: header, encryptionKey: key)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize + 2 * Crypto.blockSize, alignment: 16)
        defer {
            Crypto.cleanse(buffer); buffer.deallocate()
            Crypto.cleanse(plaintext); plaintext.deallocate()
        }
        var offset = 0
        do throws(SystemError) {
            while offset < spool.size {
                let n = try spool.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(chunkSize, spool.size - offset)]))
                guard n > 0 else { throw SystemError(code: EIO) }
                let count = decipher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), to: plaintext.baseAddress!)
                let bytes = UnsafeRawBufferPointer(rebasing: plaintext[0..<count])
                if let fd { try writeAll(fd, bytes) } else { try spool.write(bytes, at: offset) }
                offset += n
            }
        } catch { throw .write(error) }
    }
}

private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
