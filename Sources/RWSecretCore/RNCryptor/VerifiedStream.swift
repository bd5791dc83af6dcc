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
/// destination receives the complete private file by a link (`linkat`; it
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


    /// What a stream decrypted: what opened the message and how many plaintext bytes it
    /// wrote (the stream's form of the top-level `Decrypted`, whose plaintext is in memory).
    public struct Decrypted: Sendable {
        /// The password or the key that opened it.
        public let openedBy: Opener
        /// Plaintext bytes written.
        public let plaintextSize: Int
    }


    /// The chunk size of every read.
    package static let chunkSize = 1 << 20

    /// Threads to use (1: everything on the calling thread).
    package var jobs: Int
    /// Called after each chunk read with the bytes read so far and the input's size when known.
    public var progress: ((_ done: Int, _ total: Int?) -> Void)?

    /// A stream that uses up to `jobs` threads.
    public init(jobs: Int = 1) { self.jobs = max(1, jobs) }

    /// Chunks read ahead of the slowest consumer (each `chunkSize` bytes).
    static let ringSlots = 4

    /// Decrypts the message read from `input` (read once, to its end) with the
    /// client's chain, and writes the plaintext to `destination` only once verified.
    /// The client's store is opened only when the message is password-based.
    /// The client's ``LegacyFormats`` decide whether a v0 or v1 message is opened.
    ///
    /// Blocks the calling thread for the key derivations and the I/O; `await decrypt(input:client:to:)`
    /// runs it on a thread of its own.
    ///
    /// Throws what ``PasswordClient``'s `decrypt` throws, and, for the stream's own failures
    /// (nothing was written then), a ``DecryptionFailure`` with code `notRNCryptor` (an input
    /// whose first byte is no RNCryptor version: base64 text, a message of another kind, which
    /// RWSecretKit's `Decryption.RawInput` tells and opens, other data), `inputChanged`, `readFailed`,
    /// `createFailed`, `writeFailed` or `temporaryFileFailed`.
    public func decrypt(input: FileDescriptor, client: PasswordClient, to destination: Destination) throws(DecryptionFailure) -> Decrypted {
        do { return try decrypt(input: input.rawValue, client: client, to: destination) } catch { throw DecryptionFailure(error) }
    }

    /// `decrypt(input:client:to:)` for a raw descriptor (the tool's).
    /// `read`: the input's first bytes, already read from it (a stream RWSecretKit's registry was
    /// asked about first); the rest is read from `input`.
    package func decrypt(input: Int32, read: [UInt8] = [], client: PasswordClient, to destination: Destination) throws(Failure) -> Decrypted {
        try decrypt(input: input, read: read, legacyFormats: client.legacyFormats, chain: { header in try client.chainHead(for: header) }, to: destination)
    }

    /// Decrypts the message read from `input` (read once, to its end) with the chain
    /// that `chain` gives for its header (nil: nothing to try), and writes the
    /// plaintext to `destination` only once verified. What `chain` throws fails the
    /// run as `chainUnavailable`, before anything is written. A v0 or v1 message fails
    /// with `.format(.legacyVersion)`, before `chain` is asked, unless `legacyFormats` allow it.
    package func decrypt(input: Int32, read already: [UInt8] = [], legacyFormats: LegacyFormats, chain: (MessageHeader) throws -> (any DecryptionHandler)?,
                        to destination: Destination) throws(Failure) -> Decrypted {
        precondition(already.count <= Self.chunkSize, "more than a chunk read ahead")
        let before = try? fileStatus(input)
        let regular = before.map { ($0.st_mode & S_IFMT) == S_IFREG } ?? false
        let total = regular ? before.map { Int($0.st_size) } : nil
        // A pipe's 64 KiB default wakes the writer and this reader 16 times per chunk.
        if let before, (before.st_mode & S_IFMT) == S_IFIFO { _ = rws_set_pipe_size(input, Int32(Self.chunkSize)) }

        // Each chunk is read once into a slot of the ring; every consumer reads it there.
        // A slot holds up to 32 held-back bytes of the chunk before (maybe the tag), then a chunk.
        let ring = ChunkRing(slots: Self.ringSlots, slotSize: Crypto.tagSize + Self.chunkSize)
        let filled: Int
        if !already.isEmpty { already.withUnsafeBytes { ring.slot(0).baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        do { filled = try already.count + readFully(input, into: UnsafeMutableRawBufferPointer(rebasing: ring.slot(0)[already.count..<Self.chunkSize])) } catch { throw .read(error) }
        let first = Array(ring.slot(0)[0..<min(filled, 64)])
        let header: MessageHeader
        // No RNCryptor header: what it is instead (another kind, base64 text) is the caller's to
        // ask the kind registry, with the bytes read (the input goes on after them).
        do { header = try MessageHeader(parsing: first) } catch { throw .notAHeader(Array(ring.slot(0)[0..<filled]), error) }
        if let total {
            do { try header.validate(messageLength: total) } catch { throw .format(error) }
        }
        do { try legacyFormats.check(header) } catch { throw .format(error) }

        let head: (any DecryptionHandler)?
        do { head = try chain(header) } catch { throw .chainUnavailable(error) }
        let (candidates, passwords) = try Self.candidates(for: header, head: head)
        let single = candidates.count == 1
        let folder: String
        if case .file(let path) = destination { folder = RWSecretCore.folder(of: path.string) } else { folder = temporaryFolder }
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
            return Decrypted(openedBy: opened.opener, plaintextSize: store.size)
        }
        let spool = SpoolDecipher(spool: store, header: header, key: opened.encryptionKey(), threads: jobs)
        try spool.checkPadding()
        if case .file(let path) = destination {
            try spool.run(to: nil)
            do { try store.link(as: path.string) } catch { throw .create(error) }
        } else {
            try Self.deliver(to: destination) { fd throws(Failure) in try spool.run(to: fd) }
        }
        return Decrypted(openedBy: opened.opener, plaintextSize: spool.plaintextSize)
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
}

extension VerifiedStream.Destination {
    var isFile: Bool { if case .file = self { true } else { false } }
}
