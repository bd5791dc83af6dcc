internal import CZlib
internal import CBZip2

/// The body of a compressed data packet (RFC 9580 5.6), inflated as a stream: ZIP (raw
/// deflate) and ZLIB through zlib, BZip2 through libbz2. A stream cut short is an error; what
/// follows its end in the packet (sq's padding) is skipped.
final class OpenPGPDecompressor: ByteSource {
    private enum Engine {
        case zlib(UnsafeMutablePointer<z_stream>, rws_zlib)
        case bzip2(UnsafeMutablePointer<bz_stream>, rws_bzip2)
    }

    private let body: ByteSource
    private let engine: Engine
    private let inputBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    private var ended = false
    private var bodyEnded = false

    /// A decompressor for algorithm `algorithm` (1 ZIP, 2 ZLIB, 3 BZip2) over `body`.
    init(algorithm: UInt8, body: ByteSource) throws(KindError) {
        self.body = body
        switch algorithm {
        case 1, 2:
            let zlib: rws_zlib
            do { zlib = try LoadedLibraries.zlib() } catch { inputBuffer.deallocate(); throw error }
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let ok = zlib.inflateInit2_(stream, algorithm == 1 ? -15 : 15, zlib.zlibVersion(), Int32(MemoryLayout<z_stream>.size))
            guard ok == Z_OK else {
                stream.deallocate()
                inputBuffer.deallocate()
                throw .header("zlib could not start (\(ok))")
            }
            engine = .zlib(stream, zlib)
        case 3:
            let bzip2: rws_bzip2
            do { bzip2 = try LoadedLibraries.bzip2() } catch { inputBuffer.deallocate(); throw error }
            let stream = UnsafeMutablePointer<bz_stream>.allocate(capacity: 1)
            stream.initialize(to: bz_stream())
            let ok = bzip2.BZ2_bzDecompressInit(stream, 0, 0)
            guard ok == BZ_OK else {
                stream.deallocate()
                inputBuffer.deallocate()
                throw .header("libbz2 could not start (\(ok))")
            }
            engine = .bzip2(stream, bzip2)
        default:
            inputBuffer.deallocate()
            throw .header("unknown compression algorithm \(algorithm)")
        }
    }

    deinit {
        switch engine {
        case .zlib(let stream, let zlib):
            _ = zlib.inflateEnd(stream)
            stream.deallocate()
        case .bzip2(let stream, let bzip2):
            _ = bzip2.BZ2_bzDecompressEnd(stream)
            stream.deallocate()
        }
        Crypto.cleanse(inputBuffer)
        inputBuffer.deallocate()
    }

    /// More compressed input when the decompressor has used all it had; nil while it has some.
    private func refill(available: Int) throws(KindError) -> (UnsafeMutablePointer<UInt8>, Int)? {
        guard available == 0 else { return nil }
        guard !bodyEnded else { throw .payload("compressed data cut short") }
        let n = try body.read(into: inputBuffer)
        if n == 0 { bodyEnded = true; throw .payload("compressed data cut short") }
        return (inputBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), n)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        guard buffer.count > 0, !ended else { return 0 }
        let out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let room = min(buffer.count, Int(UInt32.max))
        switch engine {
        case .zlib(let stream, let zlib):
            stream.pointee.next_out = out
            stream.pointee.avail_out = UInt32(room)
            while stream.pointee.avail_out == UInt32(room) {
                if let (next, n) = try refill(available: Int(stream.pointee.avail_in)) {
                    stream.pointee.next_in = next
                    stream.pointee.avail_in = UInt32(n)
                }
                let status = zlib.inflate(stream, Z_NO_FLUSH)
                if status == Z_STREAM_END {
                    ended = true
                    try checkNothingAfter(left: Int(stream.pointee.avail_in))
                    break
                }
                guard status == Z_OK || status == Z_BUF_ERROR else { throw .payload("corrupt compressed data (zlib \(status))") }
            }
            return room - Int(stream.pointee.avail_out)
        case .bzip2(let stream, let bzip2):
            stream.pointee.next_out = UnsafeMutableRawPointer(out).assumingMemoryBound(to: CChar.self)
            stream.pointee.avail_out = UInt32(room)
            while stream.pointee.avail_out == UInt32(room) {
                if let (next, n) = try refill(available: Int(stream.pointee.avail_in)) {
                    stream.pointee.next_in = UnsafeMutableRawPointer(next).assumingMemoryBound(to: CChar.self)
                    stream.pointee.avail_in = UInt32(n)
                }
                let status = bzip2.BZ2_bzDecompress(stream)
                if status == BZ_STREAM_END {
                    ended = true
                    try checkNothingAfter(left: Int(stream.pointee.avail_in))
                    break
                }
                guard status == BZ_OK else { throw .payload("corrupt compressed data (libbz2 \(status))") }
            }
            return room - Int(stream.pointee.avail_out)
        }
    }

    /// After the end of the compressed stream: whatever else the packet holds is skipped, as gpg
    /// skips it. `sq encrypt` pads its messages there by default (`--compression pad`), inside
    /// what the MDC or tag authenticates; compressed data is inflated only once that verified
    /// (`OpenPGPKind.release`), so nothing unauthenticated is ever tolerated this way.
    private func checkNothingAfter(left: Int) throws(KindError) {
        guard !bodyEnded else { return }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { chunk.deallocate() }
        while try body.read(into: chunk) > 0 {}
        bodyEnded = true
    }
}
