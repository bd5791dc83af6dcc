import Dispatch
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// `decrypt --binary`: one raw message of any size, in bounded memory, and no
/// plaintext released before its HMAC verifies.
///
/// Pass 1 reads the message once and computes the HMAC of every candidate
/// password (or the key) together; the first match in chain order wins. The
/// padding of the last block is checked next. Only then does pass 2 decipher
/// into OUT's temporary file (renamed into place at the end) or stdout. A pipe
/// is first spooled, as ciphertext, to an unlinked file under `$TMPDIR`.
struct BinaryDecryption {
    let session: DecryptSession
    let output: String?

    static let chunkSize = 1 << 20

    func run(file name: String) throws -> ExitStatus {
        let input: InputFile
        do { input = try InputFile(name) } catch {
            return report(name, "\(error)", error.isMissingInput ? .noInput : .ioError)
        }
        // A regular file can be read twice; anything else is spooled first.
        var spool: Int32 = -1
        defer { if spool >= 0 { close(spool) } }
        let fd: Int32
        if input.isRegularFile {
            fd = input.fd
        } else {
            do { spool = try makeSpoolFile() } catch { return report("-", "cannot spool stdin: \(error)", .ioError) }
            fd = spool
        }

        // Pass 1: the header, then every candidate's HMAC in one read.
        let header: MessageHeader
        let prefix: [UInt8]
        do {
            prefix = try readPrefix(input: input, spool: spool, fd: fd)
            header = try MessageHeader(parsing: prefix)
            // Structural problems first: no password can fix them.
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw SystemError.current }
            try header.validate(messageLength: Int(info.st_size))
        } catch let error as RNCryptorError {
            return report(name, error.description, .failure)
        } catch let error as SystemError {
            return report(name, "\(error)", .ioError)
        }
        var candidates: [(name: String, hmacKey: SecretBytes, encryptionKey: () -> SecretBytes)] = []
        if let salts = header.salts {
            guard let head = try session.client.chainHead() else {
                return report(name, DecryptionFailure.noPasswordOpened(tried: 0).description, .failure)
            }
            var passwords: [ChainPassword] = []
            head.collectPasswords(into: &passwords)
            let hmacKeys = KeyDerivation.keys(passwords.map { (header.kdfPassword($0.secret), salts.hmac) })
            for (password, hmacKey) in zip(passwords, hmacKeys) {
                candidates.append((password.name, hmacKey, { KeyDerivation.key(password: header.kdfPassword(password.secret), salt: salts.encryption) }))
            }
        } else {
            guard let keys = session.keys else { return report(name, DecryptionFailure.needsKey.description, .failure) }
            candidates.append(("key-file", keys.hmacKey, { keys.encryptionKey }))
        }

        // One candidate and an OUT file: decipher into OUT's temporary file on this
        // core while the other computes the HMAC. Nothing is renamed into place, and
        // nothing is said about the padding, until the HMAC has verified.
        if let output, candidates.count == 1 {
            return speculative(name: name, fd: fd, header: header, candidate: candidates[0], output: output)
        }

        let authenticator = StreamAuthenticator(header: header, hmacKeys: candidates.map(\.hmacKey))
        let size: Int
        do {
            size = try streamAll(fd: fd, from: 0) { authenticator.update($0) }
        } catch { return report(name, "\(error)", .ioError) }
        let match: Int?
        do { match = try authenticator.firstMatch() } catch { return report(name, error.description, .failure) }
        guard let match else {
            let failure: DecryptionFailure = header.isPasswordBased ? .noPasswordOpened(tried: candidates.count) : .keyDidNotOpen
            return report(name, failure.description, .failure)
        }
        let winner = candidates[match]
        session.global.verboseLine("opened by: \(winner.name)")
        let encryptionKey = winner.encryptionKey()

        // The padding is in the last block: check it before any plaintext leaves.
        let ciphertextEnd = size - Crypto.tagSize
        do {
            let lastTwo = try readAt(fd: fd, offset: ciphertextEnd - 2 * Crypto.blockSize, count: 2 * Crypto.blockSize)
            let previous = ciphertextEnd - 2 * Crypto.blockSize >= header.length ? Array(lastTwo[0..<16]) : header.iv
            guard StreamDecipher.paddingIsValid(previousBlock: previous, lastBlock: Array(lastTwo[16..<32]), encryptionKey: encryptionKey) else {
                return report(name, DecryptionFailure.badPadding.description, .failure)
            }
        } catch { return report(name, "\(error)", .ioError) }

        // Pass 2: authenticated, so plaintext may now be written.
        let destination: OutputFile
        if let output {
            do { destination = try OutputFile(replacing: output) } catch {
                return report(output, "cannot create: \(error)", .cannotCreate)
            }
        } else {
            destination = OutputFile()
        }
        let decipher = StreamDecipher(header: header, encryptionKey: encryptionKey)
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(Self.chunkSize + Crypto.blockSize)
        defer { Crypto.cleanse(&plaintext) }
        do {
            var position = header.length
            _ = try streamAll(fd: fd, from: header.length, upTo: ciphertextEnd) { chunk in
                plaintext.removeAll(keepingCapacity: true)
                decipher.update(chunk, into: &plaintext)
                position += chunk.count
                try plaintext.withUnsafeBytes { try destination.write($0) }
            }
            plaintext.removeAll(keepingCapacity: true)
            try decipher.finalize(into: &plaintext)
            try plaintext.withUnsafeBytes { try destination.write($0) }
            try destination.commit()
        } catch let error as RNCryptorError {
            return report(name, error.description, .failure)
        } catch {
            if output == nil && (error as? SystemError)?.code == EPIPE { return .success }
            return report(output ?? "-", "\(error)", .ioError)
        }
        return .success
    }

    private typealias Candidate = (name: String, hmacKey: SecretBytes, encryptionKey: () -> SecretBytes)

    /// HMAC on one thread, deciphering into OUT's temporary file on another.
    private func speculative(name: String, fd: Int32, header: MessageHeader, candidate: Candidate, output: String) -> ExitStatus {
        let authenticator = StreamAuthenticator(header: header, hmacKeys: [candidate.hmacKey])
        let hmacPass = Box<Result<Int?, Error>>(.success(nil))
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { [authenticator = Box(authenticator)] in
            hmacPass.value = Result {
                try streamAll(fd: fd, from: 0) { authenticator.value.update($0) }
                return try authenticator.value.firstMatch()
            }
        }
        let destination: OutputFile
        do { destination = try OutputFile(replacing: output) } catch {
            group.wait()
            return report(output, "cannot create: \(error)", .cannotCreate)
        }
        var deciphered: Result<Void, Error> = .success(())
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(Self.chunkSize + Crypto.blockSize)
        do {
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw SystemError.current }
            let decipher = StreamDecipher(header: header, encryptionKey: candidate.encryptionKey())
            try streamAll(fd: fd, from: header.length, upTo: Int(info.st_size) - Crypto.tagSize) { chunk in
                plaintext.removeAll(keepingCapacity: true)
                decipher.update(chunk, into: &plaintext)
                try plaintext.withUnsafeBytes { try destination.write($0) }
            }
            plaintext.removeAll(keepingCapacity: true)
            do { try decipher.finalize(into: &plaintext) } catch { throw DecryptionFailure.badPadding }
            try plaintext.withUnsafeBytes { try destination.write($0) }
        } catch {
            deciphered = .failure(error)
        }
        Crypto.cleanse(&plaintext)
        group.wait()
        // The HMAC decides first: a wrong password or a tampered message says so,
        // whatever the deciphering found (no padding oracle). `destination` is
        // dropped without commit on every failure, which removes the temporary file.
        switch hmacPass.value {
        case .failure(let error as RNCryptorError): return report(name, error.description, .failure)
        case .failure(let error): return report(name, "\(error)", .ioError)
        case .success(nil):
            let failure: DecryptionFailure = header.isPasswordBased ? .noPasswordOpened(tried: 1) : .keyDidNotOpen
            return report(name, failure.description, .failure)
        case .success:
            break
        }
        session.global.verboseLine("opened by: \(candidate.name)")
        do {
            try deciphered.get()
            try destination.commit()
        } catch let failure as DecryptionFailure {
            return report(name, failure.description, .failure)
        } catch {
            return report(output, "\(error)", .ioError)
        }
        return .success
    }

    private func report(_ name: String, _ reason: String, _ status: ExitStatus) -> ExitStatus {
        Output.standardError.line("rwsecret: \(name): \(reason)")
        return status
    }

    /// Reads the first bytes of the message (enough for any header); for a pipe, spools everything.
    private func readPrefix(input: InputFile, spool: Int32, fd: Int32) throws -> [UInt8] {
        if spool >= 0 {
            var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
            while true {
                let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) }
                if n == 0 { break }
                var offset = 0
                while offset < n {
                    offset += try buffer.withUnsafeBytes { raw in try retryingOnInterrupt { write(spool, raw.baseAddress! + offset, n - offset) } }
                }
            }
        }
        return try readAt(fd: fd, offset: 0, count: MessageHeader.maximumLength)
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    private func readAt(fd: Int32, offset: Int, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = try bytes.withUnsafeMutableBytes { raw in try retryingOnInterrupt { pread(fd, raw.baseAddress! + done, count - done, off_t(offset + done)) } }
            if n == 0 { break }
            done += n
        }
        return Array(bytes[0..<done])
    }

    /// Reads `fd` from `start` to `end` (or its end) in chunks through one reused buffer; returns the end offset.
    @discardableResult
    private func streamAll(fd: Int32, from start: Int, upTo end: Int = .max, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        var offset = start
        while offset < end {
            let want = min(buffer.count, end - offset)
            let n = try buffer.withUnsafeMutableBytes { raw in try retryingOnInterrupt { pread(fd, raw.baseAddress!, want, off_t(offset)) } }
            if n == 0 { break }
            try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            offset += n
        }
        return offset
    }
}

/// A reference to a value, for handing non-Sendable state to one other thread that
/// the caller then waits for (the hand-off is ordered by the DispatchGroup).
private final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
