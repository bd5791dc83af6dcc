/// Room for decrypted bytes that are not yet authenticated and must not be expanded before they
/// are (OpenPGP's compressed data, whose MDC or final tag comes at the end of the message): they
/// are kept as they are, at most the message's own size, and read back once it has verified.
/// Never released; wiped or freed when dropped.
package protocol PlaintextSpool: AnyObject {
    /// Appends all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(KindError)
    /// Reads up to `buffer.count` bytes at `offset`; fewer only at the end.
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int
}

extension PlaintextSink {
    /// A spool in memory: the default for sinks that keep their plaintext in memory.
    package func makeSpool() throws(KindError) -> any PlaintextSpool { MemorySpool() }
}

extension PrivateFilePlaintext {
    /// A second unnamed private file beside the sink's (the same folder, the same protection):
    /// what the disk holds before the message verifies is at most the message's size.
    package func makeSpool() throws(KindError) -> any PlaintextSpool {
        do { return PrivateFileSpool(try PrivateFile(in: file.folder, needsName: false)) } catch { throw .io(error) }
    }
}

/// A spool in memory, wiped when dropped.
package final class MemorySpool: PlaintextSpool {
    private var bytes: [UInt8] = []

    package init() {}

    deinit { Crypto.cleanse(&bytes) }

    package func write(_ chunk: UnsafeRawBufferPointer) throws(KindError) {
        if bytes.count + chunk.count > bytes.capacity {
            // Grown by hand so that no copy is left behind unwiped.
            var grown = [UInt8]()
            grown.reserveCapacity(max(bytes.count + chunk.count, 2 * bytes.capacity))
            grown.append(contentsOf: bytes)
            Crypto.cleanse(&bytes)
            bytes = grown
        }
        bytes.append(contentsOf: chunk)
    }

    package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        let n = max(0, min(buffer.count, bytes.count - offset))
        if n > 0 { bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) } }
        return n
    }
}

/// A spool in an unnamed private file, cut to nothing when dropped.
package final class PrivateFileSpool: PlaintextSpool {
    private let file: PrivateFile

    package init(_ file: PrivateFile) { self.file = file }

    deinit { try? file.truncate(to: 0) }

    package func write(_ chunk: UnsafeRawBufferPointer) throws(KindError) {
        do { try file.write(chunk) } catch { throw .io(error) }
    }

    package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        do { return try file.read(at: offset, into: buffer) } catch { throw .io(error) }
    }
}

/// A spool read from its start, as a byte source.
final class SpoolSource: ByteSource {
    private let spool: any PlaintextSpool
    private var offset = 0

    init(_ spool: any PlaintextSpool) { self.spool = spool }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        let n = try spool.read(at: offset, into: buffer)
        offset += n
        return n
    }
}
