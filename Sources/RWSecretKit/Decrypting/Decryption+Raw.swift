public import SystemPackage
#if canImport(Glibc)
internal import Glibc
#endif

/// One raw (binary) input of any kind, as `rwsecret decrypt --binary` opens it: its first bytes
/// read once and told by the kind registry; a raw RNCryptor message through ``VerifiedStream``
/// (the bytes already read handed on, never read twice), a whole message of another kind
/// through ``Decryption/open(_:identities:memory:to:askingAfter:)``.
extension Decryption {
    /// A raw input — a regular file, a pipe, a socket, a terminal — whose first bytes were read
    /// (a regular file's with `pread`: its offset stays where it was) and told by the kind
    /// registry: a raw RNCryptor message (`open(_:threads:to:askingAfter:)` opens it), or a
    /// message of another kind (``isOtherKind``; ``wholeMessage`` opens it).
    ///
    /// It reads the descriptor it was given, which must stay open while it is used. Sendable as
    /// a run hands an input to one thread at a time: one thread reads it.
    public struct RawInput: @unchecked Sendable {
        /// The input's descriptor (not owned).
        fileprivate let fd: Int32
        /// Whether it is a regular file: read again from its start when the person is asked for
        /// a password, and failed when it changes while it is read.
        fileprivate let regular: Bool
        /// The bytes taken from a stream to tell its kind (none of a regular file's).
        fileprivate let taken: [UInt8]
        fileprivate let progress: ((_ done: Int, _ total: Int?) -> Void)?
        /// Whether it holds a message of another kind than a raw RNCryptor one (age, OpenPGP,
        /// Ansible Vault): ``wholeMessage`` opens it, unless it is an OpenPGP message of a form
        /// not opened here (then ``wholeMessage`` is nil).
        public let isOtherKind: Bool
        /// The whole message of another kind it holds, read on from where its first bytes ended
        /// (a regular file: from its start, with `pread`, and failed when it changes while it is
        /// read; a stream: once); nil for a raw RNCryptor input, and for an OpenPGP message of a
        /// form not opened here.
        public let wholeMessage: WholeMessage?

        /// Reads the first bytes of `input` (up to 1 KiB, fewer at its end) and tells its kind.
        /// `progress` is told the bytes read so far and the input's size (nil when it is not a
        /// regular file) as it is read, whatever its kind. Throws what reading threw.
        public init(_ input: FileDescriptor, progress: ((_ done: Int, _ total: Int?) -> Void)? = nil) throws(Errno) {
            let fd = input.rawValue
            var status = stat()
            let regular = fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
            self.fd = fd
            self.regular = regular
            self.progress = progress
            var head = [UInt8](repeating: 0, count: detectionLength)
            var done = 0
            while done < head.count {
                let n = try retryingOnInterrupt {
                    head.withUnsafeMutableBytes { buffer in
                        regular ? pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(done)) : Glibc.read(fd, buffer.baseAddress! + done, buffer.count - done)
                    }
                }
                if n == 0 { break }
                done += n
            }
            head.removeSubrange(done...)
            taken = regular ? [] : head
            isOtherKind = KindRegistry.isOtherKind(head[...])
            guard isOtherKind else {
                wholeMessage = nil
                return
            }
            // The progress line goes on over the kind's reads.
            let total = regular ? (fstat(fd, &status) == 0 ? Int(status.st_size) : nil) : nil
            let counted = progress.map { progress in { (done: Int) in progress(done, total) } }
            if regular {
                // (Nil when no duplicate can be made: said as a message not opened here.)
                wholeMessage = (try? HeldDescriptor(duplicating: fd)).flatMap { WholeMessage(held: $0, head: head, progress: counted, failsIfChanged: true) }
            } else {
                var read = head.count
                wholeMessage = WholeMessage(prefix: head, read: { [fd] buffer throws(Errno) in
                    let n = try retryingOnInterrupt { Glibc.read(fd, buffer.baseAddress!, buffer.count) }
                    read += n
                    counted?(read)
                    return n
                })
            }
        }

        /// What a raw input that is no raw RNCryptor message holds instead, when the kind
        /// registry can tell (``RawNotOpened/instead``). Not frozen: later versions may add some.
        public struct Instead: Hashable, Sendable {
            private let value: Int
            private init(_ value: Int) { self.value = value }

            /// A message of another kind (``RawInput/isOtherKind``: open its ``RawInput/wholeMessage``).
            public static let otherKind = Instead(1)
            /// Base64 text (RNCryptor messages one per line), not a raw message.
            public static let base64Text = Instead(2)
            /// An age file whose first line is damaged (`age-encryption.org/v1` expected).
            public static let damagedAgeFile = Instead(3)
            /// A YAML file with no `!vault` value.
            public static let yamlWithoutVault = Instead(4)
            /// A YAML file with `!vault` values (each an Ansible Vault:
            /// ``WholeMessage/vaultValues(inYAML:)`` reads them).
            public static let yamlWithVaultValues = Instead(5)
            /// Other text.
            public static let text = Instead(6)
        }
    }

    /// Why a raw input did not open: the ``failure`` (its code and facts), and for an input that
    /// holds no raw RNCryptor message, what it holds ``instead`` when that can be told.
    public struct RawNotOpened: Error, Sendable {
        /// What went wrong: codes `format` (with ``/RWSecretCore/DecryptionFailure/formatError``),
        /// `notRNCryptor` (another kind), `noPasswordOpened`, `needsKey`, `keyDidNotOpen`,
        /// `badPadding`, `inputChanged`, `readFailed`, `createFailed`, `writeFailed`,
        /// `temporaryFileFailed`.
        public let failure: DecryptionFailure
        /// What the input holds instead of a raw RNCryptor message (another kind, base64 text,
        /// YAML, text, a damaged age file); nil when it is one, or nothing can be told.
        public let instead: RawInput.Instead?
    }

    /// Opens the raw RNCryptor message `input` holds with the run's chain (the store opened only
    /// for a password-based message, the first time) on up to `threads` threads (nil: the
    /// run's jobs), and writes its plaintext to `destination` only once it verified
    /// (``/RWSecretCore/VerifiedStream``). When no password opened a regular file and `what` is given, the
    /// run's reporter is asked (naming `what`) and its password tried alone, the file read again
    /// from its start; when that fails too, the chain's failure is returned. A stream is read
    /// once and never asked about. An input of another kind fails with code `notRNCryptor`
    /// (``RawInput/Instead/otherKind``): open its ``RawInput/wholeMessage``.
    ///
    /// Blocks while it reads, derives keys and writes; the async form does not hold a Swift
    /// concurrency thread. Throws what opening the store threw (a `StoreError`, or what the
    /// client's store opener threw).
    public func open(_ input: RawInput, threads: Int? = nil, to destination: VerifiedStream.Destination,
                     askingAfter what: String? = nil) throws -> Result<VerifiedStream.Decrypted, RawNotOpened> {
        if input.isOtherKind { return .failure(RawNotOpened(failure: .notRNCryptor, instead: .otherKind)) }
        var stream = VerifiedStream(jobs: threads ?? options.jobs)
        stream.progress = input.progress
        let fd = input.fd
        // A regular file is read again from where it began for the password asked for (its
        // first bytes were read with pread: its offset is still there).
        let start = input.regular ? lseek(fd, 0, SEEK_CUR) : -1
        var tried: (any DecryptionHandler)?, asked: (any DecryptionHandler)?
        var notOpened: DecryptionFailure?
        while true {
            do {
                return .success(try stream.decrypt(input: fd, read: asked == nil ? input.taken : [], legacyFormats: client.legacyFormats, chain: { [client] header in
                    if let asked { return asked }
                    tried = try client.chainHead(for: header)
                    return tried
                }, to: destination))
            } catch {
                if case .notOpened(let failure) = error, notOpened == nil, start >= 0, failure.code == .noPasswordOpened, let what,
                   let handler = askedHandler(after: what, chain: tried), lseek(fd, start, SEEK_SET) == start {
                    notOpened = failure
                    asked = handler
                    continue
                }
                switch error {
                case .chainUnavailable(let error): throw error
                // The asked password failed too: the chain's failure, as without asking.
                case .notOpened(let failure): return .failure(RawNotOpened(failure: notOpened ?? failure, instead: nil))
                case .notAHeader(let read, _) where KindRegistry.isOtherKind(read[...]):
                    return .failure(RawNotOpened(failure: .notRNCryptor, instead: .otherKind))
                case .notAHeader(let read, let error) where KindRegistry.looksLikeBase64Text(Array(read.prefix(64))):
                    return .failure(RawNotOpened(failure: .format(error), instead: .base64Text))
                case .notAHeader(_, let error), .format(let error):
                    return .failure(RawNotOpened(failure: .format(error), instead: Self.instead(fd, regular: input.regular)))
                default: return .failure(RawNotOpened(failure: DecryptionFailure(error), instead: nil))
                }
            }
        }
    }

    /// What a raw input whose RNCryptor header failed is instead, when it says so: an age file
    /// whose first line is damaged; a regular file of text up to 16 MiB, YAML or not.
    private static func instead(_ fd: Int32, regular: Bool) -> RawInput.Instead? {
        var head = [UInt8](repeating: 0, count: 32)
        let got = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, 0) }
        if got > 0, KindRegistry.isDamagedAgeFirstLine(head[..<got]) { return .damagedAgeFile }
        var status = stat()
        guard regular, fstat(fd, &status) == 0, status.st_size <= yamlLimit else { return nil }
        var text = [UInt8](repeating: 0, count: Int(status.st_size))
        let n = text.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, 0) }
        guard n == Int(status.st_size), MessageRows.kind(of: text.prefix(1 << 16)) == .text else { return nil }
        if KindRegistry.mayBeYAML(text) {
            return AnsibleVaultKind.vaultValues(inYAML: text).isEmpty ? .yamlWithoutVault : .yamlWithVaultValues
        }
        return .text
    }

    /// The largest text file read whole to say what it is.
    private static let yamlLimit = 16 << 20
}
