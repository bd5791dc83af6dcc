#if canImport(Glibc)
internal import Glibc
#endif

/// The second pass with several candidates: the verified spool (the body's ciphertext)
/// deciphered with the winner's key, in place (it then becomes the destination file) or
/// to a descriptor in order.
///
/// CBC (v1–v3): the last block first, so bad padding is known before any byte is
/// released; then chunks of whole blocks, each from the ciphertext block before it, on up
/// to `threads` threads. The counter mode of v0 runs on one thread.
final class SpoolDecipher: @unchecked Sendable {
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
            // This thread and the scheduler's threads free to help, each taking the next chunk.
            Scheduler.shared.fork(width: workers) { _ in work(chunks: chunks, to: fd) }
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
